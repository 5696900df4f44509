// The in-memory form of a PTX module, produced by the parser and consumed by
// the functional engine (exec/) and the timing model. It is plain data: the
// parser fills it, analysis (cfg.h) annotates branches with reconvergence
// points, exec::bind() attaches an execution handler to each instruction.
//
// Registers: every non-predicate register of a function gets a dense index
// (0..num_regs-1), every predicate register a dense index in its own space
// (0..num_preds-1). The engine keeps 32 lanes x 64 bits per register and one
// 32-bit lane mask per predicate, so operands carry only indices.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpumux/core/error.h"

namespace gpumux::exec {
struct StepContext;
}

namespace gpumux::ptx {

struct Instruction;
// Executes one warp instruction; chosen once per instruction by exec::bind().
using ExecHandler = void (*)(exec::StepContext&, const Instruction&);

// Scalar types of PTX. Order matters only for the helpers below.
enum class Type : uint8_t {
  None,
  Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, F32, F64,
};

// Size in bytes of one value of the type (Pred: 0, F16x2: 4). Inline: the
// handlers ask per instruction, some per lane.
constexpr unsigned type_size(Type t) {
  constexpr std::array<uint8_t, 21> kSize = {0, 0,             // None, Pred
                                             1, 2, 4, 8, 16,   // B8..B128
                                             1, 2, 4, 8,       // U8..U64
                                             1, 2, 4, 8,       // S8..S64
                                             2, 4, 2, 4, 4, 8};  // F16, F16x2, BF16, BF16x2, F32, F64
  return uint8_t(t) < kSize.size() ? kSize[uint8_t(t)] : 0;
}
constexpr bool type_is_float(Type t) { return t >= Type::F16 && t <= Type::F64; }
constexpr bool type_is_signed(Type t) { return t >= Type::S8 && t <= Type::S64; }
constexpr bool type_is_unsigned(Type t) { return t >= Type::U8 && t <= Type::U64; }
constexpr bool type_is_bits(Type t) { return t >= Type::B8 && t <= Type::B128; }
const char* type_name(Type t); // "u32" (no dot)

enum class Space : uint8_t { None, Reg, Global, Shared, Local, Const, Param, Generic };
const char* space_name(Space s);

// One enumerator per opcode family; types and modifiers are in Instruction.
enum class Opcode : uint8_t {
  Invalid,
  // data movement
  Ld, Ldu, St, Mov, Cvt, Cvta, Prefetch, Isspacep,
  // integer / float arithmetic
  Add, Sub, Mul, Mad, Mul24, Mad24, Sad, Div, Rem, Abs, Neg, Min, Max, Fma,
  Rcp, Sqrt, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh, Copysign, Testp,
  Addc, Subc, Madc,  // with carry-in (Instruction::cc: also carry-out)
  // bits
  And, Or, Xor, Not, Cnot, Shl, Shr, Shf, Bfe, Bfi, Brev, Popc, Clz, Bfind, Prmt, Lop3,
  Dp4a, Dp2a, Bmsk, Fns,
  // comparison and selection
  Setp, Set, Selp, Slct,
  // control
  Bra, Call, Ret, Exit, Trap, Brkpt, Nanosleep,
  // synchronisation and communication
  Bar,      // bar.sync / bar.arrive / bar.red / barrier.sync (see BarKind)
  Membar,   // membar.* and fence.*
  Atom, Red, Shfl, Vote, Match, Activemask,
  Redux,    // redux.sync: the operation in Instruction::aop
  // textures and surfaces (bindless: the object is a 64-bit register); Instruction::tex
  Tex, Tld4, Txq, Suld, Sust, Suq,
  // asynchronous copies, asynchronous barriers and tensor cores (parse_async_tensor.h)
  CpAsync,  // cp.async copy, commit_group, wait_group, wait_all, mbarrier.arrive: Instruction::async
  Mbarrier, // mbarrier.*: Instruction::mbar
  Mma,      // mma.sync: Instruction::tensor
  Ldmatrix, // ldmatrix.sync.aligned.m8n8: Instruction::tensor (count, trans)
  Wmma,     // wmma.load/store/mma: Instruction::tensor (wmma: which operation)
  // video instructions, scalar and SIMD (vadd, vadd2, vadd4, vset4, ...): Instruction::video (parse_video.h)
  Video,
  NumOpcodes
};
const char* opcode_name(Opcode op);

enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
enum class CmpOp : uint8_t {
  None, Eq, Ne, Lt, Le, Gt, Ge,   // ordered (signed/float) comparisons
  Lo, Ls, Hi, Hs,                 // unsigned comparisons
  Equ, Neu, Ltu, Leu, Gtu, Geu,   // unordered float comparisons
  Num, Nan
};
enum class BoolOp : uint8_t { None, And, Or, Xor };     // setp/set/bar.red combine
enum class MulMode : uint8_t { None, Lo, Hi, Wide };    // mul/mad .lo/.hi/.wide
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, Cas, Exch, And, Or, Xor };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class BarKind : uint8_t { None, Sync, Arrive, Red, Warp };  // Warp: bar.warp.sync membermask
enum class RedOp : uint8_t { None, Popc, And, Or };      // bar.red
enum class ShiftDir : uint8_t { None, Left, Right };      // shf.l / shf.r
enum class ShfMode : uint8_t { None, Clamp, Wrap };
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class PrmtMode : uint8_t { None, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
// Texture/surface geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube).
enum class TexGeom : uint8_t { None, D1, D2, D3, A1d, A2d, Cube, ACube };
enum class TexLod : uint8_t { None, Level, Grad };       // tex.level / tex.grad
enum class SurfClamp : uint8_t { None, Trap, Clamp, Zero };  // suld/sust out-of-range mode
// txq/suq queries (the attribute after the opcode).
enum class TexQuery : uint8_t {
  None, Width, Height, Depth, ChannelDataType, ChannelOrder, NormalizedCoords, FilterMode,
  AddrMode0, AddrMode1, AddrMode2, ArraySize, NumMipmapLevels, NumSamples, MemoryLayout,
};
struct TexModifiers {
  TexGeom geom = TexGeom::None;
  TexLod lod = TexLod::None;
  SurfClamp clamp = SurfClamp::None;
  TexQuery query = TexQuery::None;
  uint8_t comp = 0;        // tld4.r/.g/.b/.a: channel 0..3
  bool formatted = false;  // sust.p (sust.b: false)
};
// cp.async forms; MbarrierArrive: cp.async.mbarrier.arrive (Instruction::noinc for .noinc).
enum class AsyncOp : uint8_t { None, Copy, Commit, WaitGroup, WaitAll, MbarrierArrive };
// mbarrier operations; the *Parity forms take a phase parity instead of a state.
enum class MbarOp : uint8_t {
  None, Init, Inval, Arrive, ArriveDrop, TestWait, TestWaitParity, TryWait, TryWaitParity, PendingCount
};
// wmma operations: load of fragment a, b or c, store of d, mma.
enum class WmmaOp : uint8_t { None, LoadA, LoadB, LoadC, StoreD, Mma };
// Element types of tensor-core operands (tf32, s4/u4 and b1 have no register type).
enum class MmaType : uint8_t { None, F16, BF16, Tf32, F32, F64, S8, U8, S4, U4, B1, S32 };
// Shape, layouts and operand types of mma/ldmatrix.
struct TensorOp {
  uint16_t m = 0, n = 0, k = 0;
  uint8_t count = 0;          // ldmatrix .x1/.x2/.x4
  bool trans = false;         // ldmatrix .trans
  bool a_col = false, b_col = false;  // mma .row/.col of A and B
  bool satfinite = false;     // integer mma .satfinite
  MmaType a = MmaType::None, b = MmaType::None, c = MmaType::None, d = MmaType::None;
  AtomOp bitop = AtomOp::None;  // b1 mma: .xor.popc (Xor) or .and.popc (And)
  WmmaOp wmma = WmmaOp::None;
};

// Video instructions (PTX ISA "Video Instructions"): the operation of vadd,
// vadd2, vadd4, ..., its operand types and selectors. The destination type
// (.u32/.s32) is Instruction::type; vset's comparison is Instruction::cmp.
enum class VideoOp : uint8_t { None, Add, Sub, Absdiff, Min, Max, Avrg, Shl, Shr, Set };
struct VideoModifiers {
  VideoOp op = VideoOp::None;
  uint8_t lanes = 0;                             // 1: scalar; 2 or 4: SIMD (vop2, vop4)
  Type atype = Type::None, btype = Type::None;   // .u32 or .s32
  AtomOp second = AtomOp::None;                  // scalar .add/.min/.max; SIMD .add (accumulate)
  bool clamp = false;                            // vshl/vshr .clamp (else .wrap)
  // Scalar: a VideoSel each (Word: the whole register; dsel Word: no merge).
  // SIMD: asel/bsel hold, per lane i, the index of its byte (0-7) or half (0-3)
  // in {b, a} in bits [4i, 4i+4); dsel is the mask of lanes written (bit i: lane i).
  uint16_t asel = 0, bsel = 0;
  uint8_t dsel = 0;
};
enum VideoSel : uint8_t { kVideoWord, kVideoB0, kVideoB1, kVideoB2, kVideoB3, kVideoH0, kVideoH1 };

// Special registers readable with mov/cvt (%tid.x etc.). Component in Operand::comp.
enum class SpecialReg : uint8_t {
  None, Tid, Ntid, Ctaid, Nctaid, Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid,
  Clock, Clock64, Globaltimer, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
  Envreg, DynamicSmemSize, TotalSmemSize,
  ClockHi, GlobaltimerLo, GlobaltimerHi,  // %clock_hi: high half of %clock64; %globaltimer_lo/_hi
  Pm, Pm64,          // %pm0..%pm7, %pm0_64..%pm7_64 (counter in comp): not modeled, read 0
  CurrentGraphExec,  // %current_graph_exec: 0, no launch comes from a CUDA graph
  // %reserved_smem_offset_begin/_end/_cap and %reserved_smem_offset_0/_1 (index in comp):
  // the block's reserved shared-memory region (ptx/resources.h, kReservedSmemBytes)
  ReservedSmemBegin, ReservedSmemEnd, ReservedSmemCap, ReservedSmemOffset,
};

enum class OperandKind : uint8_t {
  None,
  Reg,      // register: reg = index
  Pred,     // predicate register: reg = index; neg = !%p
  Imm,      // immediate: imm = raw bits already in the instruction's operand type
  Special,  // special register: sreg, comp (0=x,1=y,2=z; Envreg, Pm, Pm64: index)
  Symbol,   // address of a variable: sym/scope name it
  Addr,     // memory address [base + imm]: base is a register (reg), a symbol (sym/scope) or none
  Vec,      // vector {a, b, c, d}: vec[0..vcount) are register indices (kNoReg = sink "_")
  Label,    // branch target: imm = instruction index in the function (resolved by the parser)
  Func,     // call target: sym = index into Module::functions
  Sink,     // "_" destination
};

// Where Operand::sym points for Symbol and Addr operands.
enum class SymScope : uint8_t {
  Module,    // Module::globals index (a .global/.const/.shared module variable)
  Local,     // Function::locals index (.local depot, demoted .shared, call-block .param)
  Param,     // Function::params index (kernel or function parameter)
  Ret,       // Function::rets index (function return parameter)
};

inline constexpr uint16_t kNoReg = 0xffff;
inline constexpr uint32_t kNoSym = 0xffffffff;

struct Operand {
  OperandKind kind = OperandKind::None;
  bool neg = false;              // Pred: negated (!%p); Vec element sinks use kNoReg
  SpecialReg sreg = SpecialReg::None;
  uint8_t comp = 0;
  uint8_t vcount = 0;
  uint16_t reg = kNoReg;         // Reg/Pred index; Addr base register (kNoReg: none)
  SymScope scope = SymScope::Module;
  uint32_t sym = kNoSym;         // Symbol/Addr: variable index in `scope`; Func: Module::functions index
  uint64_t imm = 0;              // Imm bits; Addr offset (two's complement); Label target
  std::array<uint16_t, 8> vec{kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg};  // wmma: 8
  bool vec_is_pred = false;      // unused by nvcc, kept for completeness
};

// One PTX instruction. Operand order follows the PTX syntax: destinations
// first. Instructions with a second destination predicate ("%r|%p" of shfl,
// setp's "%p|%q") store it in pred_dst2.
struct Instruction {
  Opcode op = Opcode::Invalid;
  Type type = Type::None;    // the instruction type (.s32 of add.s32; destination type of cvt)
  Type type2 = Type::None;   // secondary type: source of cvt/set/slct, compare type of setp
  Space space = Space::None; // ld/st/atom/red/cvta/isspacep space; cvta: the non-generic side
  bool cvta_to = false;      // cvta.to.<space> (generic -> space) vs cvta.<space>
  uint8_t vec = 1;           // .v2/.v4 for ld/st
  Rounding rnd = Rounding::None;
  bool ftz = false, sat = false, approx = false, full = false;
  bool uni = false;          // bra.uni / call.uni
  bool is_volatile = false, nc = false;  // ld.volatile, ld.global.nc (cache hints otherwise ignored)
  MulMode mul = MulMode::None;
  CmpOp cmp = CmpOp::None;
  BoolOp bop = BoolOp::None;
  AtomOp aop = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  BarKind bar = BarKind::None;
  RedOp bred = RedOp::None;
  ShiftDir sdir = ShiftDir::None;
  ShfMode shf = ShfMode::None;
  TestpMode testp = TestpMode::None;
  PrmtMode prmt = PrmtMode::None;
  TexModifiers tex{};        // tex/tld4/txq/suld/sust/suq (parser.h)
  bool aligned = false;      // barrier.sync.aligned / bar (bar.sync is aligned)
  bool sync = false;         // shfl.sync / vote.sync
  bool shiftamt = false;     // bfind.shiftamt
  // .cc of add/sub/mad/addc/subc/madc: writes the carry flag, a hidden
  // per-thread predicate of the function, in pred_dst2; addc/subc/madc read
  // it as their last operand (parser.h).
  bool cc = false;
  AsyncOp async = AsyncOp::None;
  MbarOp mbar = MbarOp::None;
  bool noinc = false;         // cp.async.mbarrier.arrive.noinc; mbarrier.arrive.noComplete
  bool cache_policy = false;  // .L2::cache_hint (cp.async): its cache-policy operand is dropped
  TensorOp tensor{};
  VideoModifiers video{};
  // guard predicate: @%p or @!%p
  uint16_t guard = kNoReg;
  bool guard_neg = false;
  uint8_t nops = 0;
  std::array<Operand, 6> ops{};
  uint16_t pred_dst2 = kNoReg;  // second predicate destination (shfl's |%p, setp's |%q)
  // call: return-value and argument operands (call-block .param variables, Symbol operands
  // with SymScope::Local) and the callee (ops[0] is a Func operand, or a Reg for an indirect call)
  std::vector<Operand> call_rets, call_args;
  // source position
  uint32_t line = 0;          // line in the PTX file
  uint32_t src_file = 0;      // .loc file index (0: none)
  uint32_t src_line = 0;      // .loc line (0: none)
  // filled by analysis (cfg.h): for branches, the immediate post-dominator
  uint32_t reconv = 0xffffffff;
  // filled by exec::bind(): the handler that executes this instruction
  ExecHandler handler = nullptr;
};

// A variable declared in a module or function (.global/.const/.shared/.local/.param).
struct Variable {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;
  uint32_t align = 0;
  uint64_t size = 0;               // total bytes (elements x type size); 0 for extern/unsized
  bool is_extern = false;          // .extern .shared x[] (dynamic shared memory)
  std::vector<uint8_t> init;       // initializer bytes (may be shorter than size; rest is 0)
  // initializers that are addresses of other symbols: (byte offset, symbol name)
  std::vector<std::pair<uint64_t, std::string>> init_addrs;
  bool visible = false;
  uint32_t line = 0;
};

// A parameter of a kernel or device function.
struct Param {
  std::string name;
  Type type = Type::None;
  uint32_t align = 0;
  uint64_t size = 0;     // bytes (arrays: .param .align 8 .b8 p[16])
  uint64_t offset = 0;   // byte offset in the parameter buffer
  bool is_ptr = false;   // .ptr attribute
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool visible = false;
  bool is_extern = false;          // declaration only (.extern .func)
  std::vector<Param> params;       // kernel or function parameters, offsets assigned
  std::vector<Param> rets;         // .func return parameters
  uint64_t param_bytes = 0;        // total size of params
  uint64_t ret_bytes = 0;
  // function-scope variables: .local depots, demoted .shared, and .param declared in call blocks
  std::vector<Variable> locals;
  std::vector<Instruction> insts;
  std::unordered_map<std::string, uint32_t> labels;  // label -> instruction index
  uint32_t num_regs = 0;           // dense register indices (non-predicate)
  uint32_t num_preds = 0;
  std::vector<std::string> reg_names;   // index -> name, for diagnostics
  std::vector<Type> reg_types;          // index -> declared type
  std::vector<std::string> pred_names;
  // performance directives
  std::array<uint32_t, 3> maxntid{0, 0, 0}, reqntid{0, 0, 0};
  uint32_t minnctapersm = 0, maxnreg = 0;
  uint32_t line = 0;
  // derived (cfg analysis / resource counting)
  uint64_t local_bytes = 0;        // .local depot size of this function itself
};

// Something the parser recognised but gpumux does not support. A module with
// any of these is rejected at load time; `gpumux ptx check` lists them all.
struct Unsupported {
  uint32_t line = 0;
  std::string construct;   // e.g. "tex.2d", "vprintf", "wmma.mma"
};

struct Module {
  std::string file;                      // path or module name, for messages
  std::string version;                   // ".version 9.0"
  std::string target;                    // "sm_80"
  uint32_t address_size = 64;
  std::vector<Variable> globals;         // .global/.const/.shared at module scope
  std::vector<Function> functions;
  std::unordered_map<std::string, uint32_t> global_index;    // name -> globals index
  std::unordered_map<std::string, uint32_t> function_index;  // name -> functions index
  std::vector<std::string> files;        // .file index -> path (index 0 unused)
  std::vector<Unsupported> unsupported;

  const Function* find_function(const std::string& name) const;
  const Variable* find_global(const std::string& name) const;
  SourceLoc loc(uint32_t line) const { return SourceLoc{file, line}; }
};

}  // namespace gpumux::ptx
