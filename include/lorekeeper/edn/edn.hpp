// EDN (extensible data notation, https://github.com/edn-format/edn) reader and printer: the text format of OrcBrew
// homebrew files (.orcbrew) exported by OrcPub / Dungeon Master's Vault. One pass over the text builds a tree of
// `Value`s; errors are values (never exceptions) whose message locates the problem as "line L, column C: ...".
//
// What the reader accepts, and the choices it makes where real files and the EDN text disagree:
// - Whitespace is space, tab, newline, return, form feed, vertical tab and comma; `;` comments run to the end of
//   the line; `#_` discards the next form (nested discards too); one leading UTF-8 byte order mark is skipped
//   (anywhere else a form may not start with one).
// - nil, true, false; integers (int64; `N` suffix allowed; an integer outside int64, with or without `N`, is kept
//   exactly as decimal text: `is_big_integer()`); floats (double, with fraction and/or exponent, `M` suffix
//   allowed and parsed as a double; out of range becomes +-infinity or zero); `##NaN`, `##Inf`, `##-Inf`.
//   Rejected with a clear error: leading zeros (`007`, octal in Clojure), hexadecimal (`0x1F`), radix (`2r101`)
//   and ratios (`1/2`).
// - Strings must be valid UTF-8 (an invalid byte is an error at its location). Escapes: \t \r \n \\ \" \b \f
//   \uXXXX (surrogate pairs are joined; a lone surrogate is an error); any other escape is an error.
// - Characters: \c for any single code point, \newline \space \tab \return \backspace \formfeed \uXXXX \oNNN.
// - Keywords and symbols, optionally namespaced (`:orcpub.dnd.e5/spells` has namespace "orcpub.dnd.e5" and name
//   "spells"; the namespace runs to the first '/', and the name may hold further '/'). As in the ClojureScript
//   reader OrcPub reads these files with, a token runs up to whitespace or one of " ; ^ ( ) [ ] { } \, so names
//   such as `:hunter's-mark` are accepted; a name may not end with ':' and `.5` is not a symbol.
// - Lists, vectors, maps (any values as keys, insertion order kept), sets `#{}`, namespaced maps `#:ns{}` (keyword
//   and symbol keys without a namespace get `ns`; those in the namespace `_` lose it).
//   Duplicate map keys and set elements (invalid EDN, but present in real exports) keep the position of the first
//   occurrence and, for maps, the value of the last one; they are counted in `ParseReport` and become an error
//   only with `ParseOptions::reject_duplicates`.
// - Tagged values `#tag value`: `#inst` needs an RFC 3339 string as Clojure reads it ("1985", "1985-04-12",
//   "1985-04-12T23:20:50.52Z", ...) and `#uuid` an 8-4-4-4-12 hex string; both, and every unknown tag, are kept
//   as kTagged values.
// - Not EDN, rejected with a clear error: auto-resolved `::kw` and `#::{}`, `#"regex"`, `#(...)`, metadata `^`,
//   reader conditionals and other `#` dispatches.
// - Nesting (collections, tags, discards) is limited to `ParseOptions::max_depth` levels; deeper input is an error,
//   not a stack overflow (a level takes about half a KiB of stack in an optimised build, more with sanitizers).
//
// Error locations: lines are counted by '\n' (1-based); columns are 1-based and count Unicode code points (UTF-8
// lead bytes) from the start of the line, a tab as one column, not counting the byte order mark.
// Values are plain copyable data without hidden state: const access from several threads is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::edn {

enum class Kind : uint8_t {
  kNil,
  kBool,
  kInteger,  // int64, or an arbitrary-precision integer kept as text (Value::is_big_integer)
  kFloat,
  kString,
  kCharacter,
  kKeyword,
  kSymbol,
  kList,
  kVector,
  kMap,
  kSet,
  kTagged,
};

// "nil", "boolean", "integer", "float", "string", "character", "keyword", "symbol", "list", "vector", "map",
// "set", "tagged value".
const char* kind_name(Kind kind);

class Value;

// One map entry, as produced by iterating `Value::entries()`.
struct MapEntry {
  const Value& key;
  const Value& value;
};

// The entries of a map in insertion order; valid while the map lives unchanged.
class MapEntries {
 public:
  class Iterator {
   public:
    explicit Iterator(const Value* p) : p_(p) {}
    MapEntry operator*() const;
    Iterator& operator++();
    bool operator==(const Iterator& o) const { return p_ == o.p_; }
    bool operator!=(const Iterator& o) const { return p_ != o.p_; }

   private:
    const Value* p_;
  };
  MapEntries(const Value* begin, size_t entries) : begin_(begin), entries_(entries) {}
  Iterator begin() const { return Iterator(begin_); }
  Iterator end() const;
  size_t size() const { return entries_; }

 private:
  const Value* begin_;
  size_t entries_;
};

class Value {
 public:
  Value() = default;  // nil

  // Constructors by kind. They do not validate: a keyword or symbol name, or big-integer digits, that the reader
  // could not have produced prints as text the reader rejects.
  static Value nil() { return Value(); }
  static Value boolean(bool b);
  static Value integer(int64_t i);
  // `digits`: optional '-', then decimal digits without leading zeros, outside the int64 range.
  static Value big_integer(std::string digits);
  static Value floating(double d);
  static Value string(std::string s);
  static Value character(char32_t c);
  // An empty `ns` means no namespace.
  static Value keyword(std::string_view ns, std::string_view name);
  static Value symbol(std::string_view ns, std::string_view name);
  static Value list(std::vector<Value> items);
  static Value vector(std::vector<Value> items);
  static Value set(std::vector<Value> items);  // kept as given (no duplicate removal)
  // `keys_and_values` alternates key, value (an odd trailing key gets a nil value); kept as given.
  static Value map(std::vector<Value> keys_and_values);
  // `tag` is the symbol text without '#', e.g. "inst" or "myapp/Person".
  static Value tagged(std::string_view tag, Value inner);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_nil() const { return kind_ == Kind::kNil; }
  // An integer outside int64, kept as its decimal text (`text()`, e.g. "-123456789012345678901234").
  bool is_big_integer() const { return kind_ == Kind::kInteger && big_; }

  // Typed reads: empty when the value is of another kind.
  std::optional<bool> as_bool() const;
  std::optional<int64_t> as_int() const;              // integers that fit int64
  std::optional<double> as_double() const;            // floats; integers converted (big ones to the nearest double)
  std::optional<std::string_view> as_string() const;  // strings only
  std::optional<char32_t> as_char() const;

  // Strings: the contents (UTF-8). Keywords and symbols: the qualified name without ':' ("orcpub.dnd.e5/spells").
  // Tagged values: the tag ("inst"). Big integers: the digits. Empty for other kinds.
  std::string_view text() const { return text_; }
  // Keywords and symbols (tagged values: their tag): the namespace ("orcpub.dnd.e5", or empty) and the name
  // ("spells"). Empty for other kinds.
  std::string_view ns() const;
  std::string_view name() const;
  // True for the keyword whose qualified name (without ':') is `qualified`.
  bool is_keyword(std::string_view qualified) const { return kind_ == Kind::kKeyword && text_ == qualified; }

  // Lists, vectors and sets: the elements. Maps: keys and values alternating (k0, v0, k1, v1, ...). Tagged values:
  // the one tagged value. Empty for other kinds.
  const std::vector<Value>& items() const { return items_; }
  // Elements of a list, vector or set; entries of a map; 0 otherwise.
  size_t size() const { return kind_ == Kind::kMap ? items_.size() / 2 : is_collection() ? items_.size() : 0; }
  bool is_collection() const {
    return kind_ == Kind::kList || kind_ == Kind::kVector || kind_ == Kind::kMap || kind_ == Kind::kSet;
  }
  // Map entries in insertion order (empty for other kinds): `for (const auto& [key, value] : v.entries())`.
  MapEntries entries() const;
  // Maps: the value of the keyword key whose qualified name is `keyword` ("name", "orcpub.dnd.e5/spells"), or
  // null when there is none or this is not a map. Linear in the number of entries.
  const Value* get(std::string_view keyword) const;
  // Maps: the value whose key equals `key`, or null.
  const Value* find(const Value& key) const;
  // Tagged values: the tagged value (nil for other kinds).
  const Value& tagged_value() const;

  // Structural equality: same kind and contents; sequences, maps and sets compare in order (the printer keeps
  // order, so printing and reading back gives an equal value); every NaN equals every NaN; 0.0 and -0.0 differ.
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }
  // A hash consistent with operator==.
  size_t hash() const;

 private:
  friend class Parser;
  Kind kind_ = Kind::kNil;
  bool big_ = false;
  uint32_t ns_len_ = 0;  // keywords, symbols, tags: length of the namespace prefix in text_ (0: none)
  union {
    int64_t int_ = 0;
    double float_;
    char32_t char_;
    bool bool_;
  };
  std::string text_;
  std::vector<Value> items_;
};

inline MapEntry MapEntries::Iterator::operator*() const { return MapEntry{p_[0], p_[1]}; }
inline MapEntries::Iterator& MapEntries::Iterator::operator++() {
  p_ += 2;
  return *this;
}
inline MapEntries::Iterator MapEntries::end() const { return Iterator(begin_ + 2 * entries_); }

inline MapEntries Value::entries() const {
  return kind_ == Kind::kMap ? MapEntries(items_.data(), items_.size() / 2) : MapEntries(nullptr, 0);
}

struct ValueHash {
  size_t operator()(const Value& v) const { return v.hash(); }
};

inline constexpr int kDefaultMaxDepth = 512;

struct ParseOptions {
  // Most collections, tags and discards open at once; deeper input is an InvalidArgument error.
  int max_depth = kDefaultMaxDepth;
  // Strict EDN: a duplicate map key or set element is an error instead of a counted warning.
  bool reject_duplicates = false;
  // Most values read in all, collections and discarded forms included (0: no limit); more is an InvalidArgument
  // error. Each value read is a node of the tree (about 72 bytes however short its text), so this bounds the memory
  // a parse takes where a bound on the text's length does not ("0 0 0 ..." is 36 times its text).
  size_t max_values = 0;
};

// What a successful parse tolerated. Filled (added to) only by a parse that succeeds.
struct ParseReport {
  static constexpr size_t kMaxWarnings = 100;
  size_t duplicate_map_keys = 0;      // entries dropped because an equal key occurs in the same map
  size_t duplicate_set_elements = 0;  // elements dropped because an equal element occurs in the same set
  // "line L, column C: duplicate map key :name (the last value is kept)", in text order, at most kMaxWarnings.
  std::vector<std::string> warnings;
};

// Exactly one value: optional whitespace, comments and discards around it, nothing else. InvalidArgument on
// malformed input, with a message "line L, column C: expected ..., found ...".
Result<Value> parse(std::string_view text, const ParseOptions& options = {}, ParseReport* report = nullptr);
// Every top-level value in order (none for empty input). Errors as for parse().
Result<std::vector<Value>> parse_all(std::string_view text, const ParseOptions& options = {},
                                     ParseReport* report = nullptr);

// EDN text for `value` on one line, in the style of Clojure's pr-str (`{:a 1, :b [2 3]}`); reading it back gives
// an equal value for anything the reader produced. Floats print in the shortest form that reads back exactly
// (always with '.' or an exponent); big integers with an N suffix; invalid UTF-8 in strings as U+FFFD.
std::string to_string(const Value& value);
// Appends to_string(value) to `out`.
void print(const Value& value, std::string& out);
std::ostream& operator<<(std::ostream& os, const Value& value);

}  // namespace lorekeeper::edn
