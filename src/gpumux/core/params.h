// Parameter declarations: each component's parameters are a plain struct whose
// members carry the type and default, plus a static declare() that gives every
// member its TOML name, unit, one-line doc and allowed range, right beside it:
//
//   struct CacheParams {
//     uint32_t ways = 4;
//     static void declare(ParamDecl<CacheParams>& d) {
//       d.param("ways", &CacheParams::ways, "", "associativity").range(1, 64);
//     }
//   };
//
// The schema built from declare() drives TOML loading, --set overrides, dumping
// and the generated reference (docs/config.md); nothing else lists parameters.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gpumux {

enum class ParamKind { Bool, Int, Float, String };

// A parameter value in transit between text/TOML and a struct member.
using ParamValue = std::variant<bool, int64_t, double, std::string>;

struct ParamInfo {
  std::string name;
  ParamKind kind = ParamKind::Int;
  std::string unit;
  std::string doc;
  int64_t min_int = std::numeric_limits<int64_t>::min();
  int64_t max_int = std::numeric_limits<int64_t>::max();
  double min_float = -std::numeric_limits<double>::infinity();
  double max_float = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // String: allowed values (empty = any)
  std::function<ParamValue(const void* owner)> get;
  std::function<void(void* owner, const ParamValue&)> set;  // value already checked

  // Empty if `v` is acceptable, else why not (without the key name).
  std::string check(const ParamValue& v) const;
  std::string type_name() const;   // "int", "float", "bool", "string"
  std::string constraint() const;  // "1..64", "lru | fifo", or ""
};

struct Schema;

struct SectionInfo {
  std::string name;
  std::string doc;
  const Schema* schema = nullptr;
  std::function<void*(void* owner)> child;
  const void* child_of(const void* owner) const { return child(const_cast<void*>(owner)); }
};

// Everything declared by one params struct.
struct Schema {
  std::vector<ParamInfo> params;
  std::vector<SectionInfo> sections;
  // Cross-parameter checks: empty string when fine, else the error message.
  std::vector<std::function<std::string(const void* owner)>> checks;

  const ParamInfo* find_param(std::string_view name) const;
  const SectionInfo* find_section(std::string_view name) const;
};

template <class T>
const Schema& schema_of();

template <class T>
class ParamDecl {
 public:
  // Returned by param() to add constraints to the parameter just declared.
  class Constraints {
   public:
    explicit Constraints(ParamInfo& p) : p_(p) {}
    Constraints& range(int64_t lo, int64_t hi) {
      p_.min_int = lo;
      p_.max_int = hi;
      return *this;
    }
    Constraints& range_float(double lo, double hi) {
      p_.min_float = lo;
      p_.max_float = hi;
      return *this;
    }
    Constraints& choices(std::initializer_list<const char*> names) {
      p_.choices.assign(names.begin(), names.end());
      return *this;
    }

   private:
    ParamInfo& p_;
  };

  // A bool, integer, floating-point or std::string member (of T or of a base of T).
  template <class M, class C>
  Constraints param(const char* name, M C::*base_member, const char* unit, const char* doc) {
    static_assert(std::is_base_of_v<C, T>);
    M T::*member = base_member;
    ParamInfo p;
    p.name = name;
    p.unit = unit;
    p.doc = doc;
    p.get = [member](const void* o) -> ParamValue {
      const M& m = static_cast<const T*>(o)->*member;
      if constexpr (std::is_same_v<M, bool> || std::is_same_v<M, std::string>) {
        return m;
      } else if constexpr (std::is_integral_v<M>) {
        return int64_t(m);
      } else {
        return double(m);
      }
    };
    p.set = [member](void* o, const ParamValue& v) {
      M& m = static_cast<T*>(o)->*member;
      if constexpr (std::is_same_v<M, bool> || std::is_same_v<M, std::string>) {
        m = std::get<M>(v);
      } else if constexpr (std::is_integral_v<M>) {
        m = M(std::get<int64_t>(v));
      } else {
        m = M(std::get<double>(v));
      }
    };
    if constexpr (std::is_same_v<M, bool>) {
      p.kind = ParamKind::Bool;
    } else if constexpr (std::is_same_v<M, std::string>) {
      p.kind = ParamKind::String;
    } else if constexpr (std::is_integral_v<M>) {
      static_assert(sizeof(M) <= sizeof(int64_t));
      p.kind = ParamKind::Int;
      p.min_int = int64_t(std::numeric_limits<M>::min());
      p.max_int = std::numeric_limits<M>::max() > uint64_t(std::numeric_limits<int64_t>::max())
                      ? std::numeric_limits<int64_t>::max()
                      : int64_t(std::numeric_limits<M>::max());
    } else {
      static_assert(std::is_floating_point_v<M>, "unsupported parameter type");
      p.kind = ParamKind::Float;
    }
    schema_.params.push_back(std::move(p));
    return Constraints(schema_.params.back());
  }

  // An enum member, written in TOML as one of `names`.
  template <class E, class C>
  void choice(const char* name, E C::*base_member, std::initializer_list<std::pair<const char*, E>> names,
              const char* doc) {
    static_assert(std::is_enum_v<E> && std::is_base_of_v<C, T>);
    E T::*member = base_member;
    std::vector<std::pair<std::string, E>> table(names.begin(), names.end());
    ParamInfo p;
    p.name = name;
    p.kind = ParamKind::String;
    p.doc = doc;
    for (const auto& [n, e] : table) p.choices.push_back(n);
    p.get = [member, table](const void* o) -> ParamValue {
      for (const auto& [n, e] : table)
        if (static_cast<const T*>(o)->*member == e) return n;
      return std::string("?");
    };
    p.set = [member, table](void* o, const ParamValue& v) {
      for (const auto& [n, e] : table)
        if (n == std::get<std::string>(v)) static_cast<T*>(o)->*member = e;
    };
    schema_.params.push_back(std::move(p));
  }

  // A nested params struct, written as the TOML table [<parent>.<name>].
  template <class S>
  void section(const char* name, S T::*member, const char* doc) {
    SectionInfo s;
    s.name = name;
    s.doc = doc;
    s.schema = &schema_of<S>();
    s.child = [member](void* o) -> void* { return &(static_cast<T*>(o)->*member); };
    schema_.sections.push_back(std::move(s));
  }

  // A check across parameters; `fn` returns an error message or "".
  void check(std::function<std::string(const T&)> fn) {
    schema_.checks.push_back([fn = std::move(fn)](const void* o) { return fn(*static_cast<const T*>(o)); });
  }

  Schema take() { return std::move(schema_); }

 private:
  Schema schema_;
};

// The schema of T, built once from T::declare and immutable afterwards.
template <class T>
const Schema& schema_of() {
  static const Schema schema = [] {
    ParamDecl<T> d;
    T::declare(d);
    return d.take();
  }();
  return schema;
}

// The value as it is written in TOML (strings quoted, floats with a '.').
std::string to_toml_literal(const ParamValue& v);

}  // namespace gpumux
