#include "gpumux/exec/loaded_module.h"

#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/builtins/registry.h"
#include "gpumux/exec/replay.h"
#include "gpumux/ptx/check.h"

namespace gpumux::exec {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

ptx::ExecHandler bind_one(const ptx::Instruction& in, std::string& why) {
  for (auto family : {&bind_tensor, &bind_compute, &bind_memory, &bind_control, &bind_warp_ops, &bind_async,
                      &bind_texture}) {
    std::string w;
    if (ptx::ExecHandler h = family(in, w)) return h;
    if (!w.empty()) why = w;
  }
  if (why.empty()) why = "no execution semantics";
  return nullptr;
}

// A call to an extern function runs the engine's built-in of that name.
ptx::ExecHandler bind_extern_call(const ptx::Module& m, const ptx::Instruction& in,
                                  std::string& why) {
  const std::string& name = m.functions[in.ops[0].sym].name;
  const Builtin* b = find_builtin(name);
  if (!b) {
    why = fmt::format("call to external function {}, which is not a built-in", name);
    return nullptr;
  }
  if (in.call_args.size() != b->num_args || (!b->returns_value && !in.call_rets.empty())) {
    why = fmt::format("call to built-in {} with {} argument(s) and {} return value(s), it takes {} "
                      "and returns {}",
                      name, in.call_args.size(), in.call_rets.size(), b->num_args,
                      b->returns_value ? "a value" : "nothing");
    return nullptr;
  }
  return b->handler;
}

bool is_extern_call(const ptx::Module& m, const ptx::Instruction& in) {
  return in.op == ptx::Opcode::Call && in.ops[0].kind == ptx::OperandKind::Func &&
         m.functions[in.ops[0].sym].is_extern;
}

}  // namespace

std::vector<ptx::Unsupported> bind_instructions(ptx::Module& m) {
  std::vector<ptx::Unsupported> failed;
  for (ptx::Function& f : m.functions)
    for (ptx::Instruction& in : f.insts) {
      std::string why;
      in.handler = is_extern_call(m, in) ? bind_extern_call(m, in, why) : bind_one(in, why);
      if (!in.handler)
        failed.push_back({in.line, fmt::format("{}: {}", ptx::opcode_name(in.op), why)});
    }
  return failed;
}

void bind(ptx::Module& m) {
  const std::vector<ptx::Unsupported> failed = bind_instructions(m);
  if (failed.empty()) return;
  std::string errors;
  for (size_t i = 0; i < failed.size() && i < 50; ++i)
    errors += fmt::format("\n  {}: unsupported instruction {}", m.loc(failed[i].line).str(),
                          failed[i].construct);
  throw LoadError(fmt::format("{}: {} unsupported instruction(s):{}", m.file, failed.size(), errors));
}

LoadedModule::LoadedModule(std::string_view text, const std::string& name, AddressSpace& mem)
    : ir_(std::make_unique<ptx::Module>(ptx::load_ptx(text, name))) {
  bind(*ir_);
  layout_frames();
  layout_kernels();
  allocate_globals(mem);
  for (const ptx::Function& f : ir_->functions) slots_.push_back(ptx::assign_register_slots(f));
  renamed_ = true;
  exec_once_ = std::make_unique<std::once_flag[]>(ir_->functions.size());
  exec_fns_.resize(ir_->functions.size());
}

LoadedModule::LoadedModule(std::unique_ptr<ptx::Module> ir, const KernelLayout& layout,
                           std::unique_ptr<const ReplayKernel> replay)
    : ir_(std::move(ir)), replay_(std::move(replay)) {
  for (const ptx::Function& f : ir_->functions) slots_.push_back(ptx::one_slot_each(f));
  layout_frames();
  kernels_.resize(ir_->functions.size());
  for (size_t i = 0; i < ir_->functions.size(); ++i)
    if (ir_->functions[i].is_entry) kernels_[i] = layout;
}

LoadedModule::~LoadedModule() = default;

const ptx::Function& LoadedModule::exec_function(uint32_t i) const {
  if (!renamed_) return ir_->functions[i];
  std::call_once(exec_once_[i], [&] {
    auto f = std::make_unique<ptx::Function>(ir_->functions[i]);
    ptx::rename_to_slots(*f, slots_[i]);
    exec_fns_[i] = std::move(f);
  });
  return *exec_fns_[i];
}

int LoadedModule::find_kernel(const std::string& name) const {
  auto it = ir_->function_index.find(name);
  if (it == ir_->function_index.end() || !ir_->functions[it->second].is_entry) return -1;
  return int(it->second);
}

void LoadedModule::layout_frames() {
  frames_.resize(ir_->functions.size());
  for (size_t i = 0; i < ir_->functions.size(); ++i) {
    const ptx::Function& f = ir_->functions[i];
    FrameLayout& fl = frames_[i];
    uint64_t local = 0, param = 0;
    auto place = [](uint64_t& top, uint64_t size, uint64_t align) {
      top = align_up(top, std::max<uint64_t>(align, 1));
      uint64_t off = top;
      top += size;
      return off;
    };
    if (!f.is_entry) {
      for (const ptx::Param& p : f.params) fl.param_offset.push_back(place(param, p.size, p.align));
      for (const ptx::Param& r : f.rets) fl.ret_offset.push_back(place(param, r.size, r.align));
    }
    for (const ptx::Variable& v : f.locals) {
      if (v.space == ptx::Space::Local)
        fl.local_var_offset.push_back(place(local, v.size, v.align));
      else if (v.space == ptx::Space::Param)
        fl.local_var_offset.push_back(place(param, v.size, std::max<uint64_t>(v.align, 8)));
      else
        fl.local_var_offset.push_back(kNoOffset);
    }
    fl.local_bytes = align_up(local, 16);
    fl.param_bytes = align_up(param, 16);
  }
}

void LoadedModule::layout_kernels() {
  kernels_.resize(ir_->functions.size());
  for (size_t i = 0; i < ir_->functions.size(); ++i) {
    const ptx::Function& f = ir_->functions[i];
    if (!f.is_entry) continue;
    kernels_[i].shared = ptx::layout_shared(*ir_, f);
    kernels_[i].resources = ptx::estimate_resources(*ir_, f);
  }
}

void LoadedModule::allocate_globals(AddressSpace& mem) {
  global_addr_.assign(ir_->globals.size(), 0);
  for (size_t i = 0; i < ir_->globals.size(); ++i) {
    const ptx::Variable& v = ir_->globals[i];
    if (v.space != ptx::Space::Global && v.space != ptx::Space::Const) continue;
    if (v.is_extern)
      throw LoadError(fmt::format("{}:{}: external variable {} is not defined in this module",
                                  ir_->file, v.line, v.name));
    global_addr_[i] = mem.allocate(v.size, fmt::format("{} {}", ptx::space_name(v.space), v.name));
    if (!v.init.empty()) mem.write(global_addr_[i], v.init.data(), std::min(v.init.size(), v.size));
  }
  // Initialisers holding addresses of other variables (pointer tables).
  for (size_t i = 0; i < ir_->globals.size(); ++i) {
    const ptx::Variable& v = ir_->globals[i];
    for (const auto& [off, sym] : v.init_addrs) {
      uint64_t a;
      if (auto g = ir_->global_index.find(sym);
          g != ir_->global_index.end() && global_addr_[g->second]) {
        a = global_addr_[g->second];
      } else if (auto f = ir_->function_index.find(sym); f != ir_->function_index.end()) {
        a = kFunctionAddressBase + f->second;
      } else {
        throw LoadError(fmt::format("{}:{}: initializer of {} takes the address of {}, which is "
                                    "neither a .global/.const variable nor a function",
                                    ir_->file, v.line, v.name, sym));
      }
      if (!global_addr_[i]) continue;
      // The parser left the addend of `generic(sym)+addend` in the bytes.
      const unsigned bytes = ir_->address_size / 8;
      uint64_t addend = 0;
      mem.read(global_addr_[i] + off, &addend, bytes);
      a += addend;
      mem.write(global_addr_[i] + off, &a, bytes);
    }
  }
}

}  // namespace gpumux::exec
