#include "lorekeeper/edn/edn.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace lorekeeper::edn {
namespace {

Value ok(std::string_view text) {
  auto r = parse(text);
  EXPECT_TRUE(r.is_ok()) << text << " -> " << r.status().to_string();
  return r ? *r : Value();
}

// The error message of a parse that must fail.
std::string err(std::string_view text, const ParseOptions& options = {}) {
  auto r = parse(text, options);
  EXPECT_FALSE(r.is_ok()) << text << " parsed as " << (r ? to_string(*r) : "");
  if (r) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

// Parses, prints, and checks the printed text reads back to an equal value; returns the printed text.
std::string round_trip(std::string_view text) {
  const Value v = ok(text);
  const std::string printed = to_string(v);
  auto again = parse(printed);
  EXPECT_TRUE(again.is_ok()) << printed << " -> " << again.status().to_string();
  if (again) {
    EXPECT_EQ(*again, v) << printed;
    EXPECT_EQ(again->hash(), v.hash()) << printed;
  }
  return printed;
}

Value kw(std::string_view name) { return Value::keyword("", name); }

// --- scalars ---

TEST(EdnScalars, NilAndBooleans) {
  EXPECT_TRUE(ok("nil").is_nil());
  EXPECT_EQ(ok("true").as_bool(), true);
  EXPECT_EQ(ok("false").as_bool(), false);
  EXPECT_EQ(ok("nil?").kind(), Kind::kSymbol);
  EXPECT_EQ(ok("truey").text(), "truey");
  EXPECT_FALSE(ok("nil").as_bool().has_value());
}

TEST(EdnScalars, Integers) {
  EXPECT_EQ(ok("0").as_int(), 0);
  EXPECT_EQ(ok("42").as_int(), 42);
  EXPECT_EQ(ok("+42").as_int(), 42);
  EXPECT_EQ(ok("-42").as_int(), -42);
  EXPECT_EQ(ok("-0").as_int(), 0);
  EXPECT_EQ(ok("42N").as_int(), 42);
  EXPECT_EQ(ok("9223372036854775807").as_int(), INT64_MAX);
  EXPECT_EQ(ok("-9223372036854775808").as_int(), INT64_MIN);
  EXPECT_EQ(ok("7").kind(), Kind::kInteger);
  EXPECT_FALSE(ok("7").is_big_integer());
  EXPECT_EQ(ok("7").as_double(), 7.0);
}

TEST(EdnScalars, BigIntegers) {
  const Value big = ok("9223372036854775808");
  EXPECT_EQ(big.kind(), Kind::kInteger);
  EXPECT_TRUE(big.is_big_integer());
  EXPECT_EQ(big.text(), "9223372036854775808");
  EXPECT_FALSE(big.as_int().has_value());
  EXPECT_DOUBLE_EQ(*big.as_double(), 9223372036854775808.0);
  const Value neg = ok("-9223372036854775809N");
  EXPECT_TRUE(neg.is_big_integer());
  EXPECT_EQ(neg.text(), "-9223372036854775809");
  const Value huge = ok("+123456789012345678901234567890N");
  EXPECT_EQ(huge.text(), "123456789012345678901234567890");
  EXPECT_EQ(to_string(huge), "123456789012345678901234567890N");
  EXPECT_EQ(round_trip("-99999999999999999999999999"), "-99999999999999999999999999N");
  EXPECT_EQ(ok("99999999999999999999N"), ok("99999999999999999999"));
  EXPECT_NE(ok("99999999999999999999N"), ok("99999999999999999998N"));
  EXPECT_TRUE(std::isinf(*ok(std::string(400, '9')).as_double()));
}

TEST(EdnScalars, Floats) {
  EXPECT_EQ(ok("1.5").as_double(), 1.5);
  EXPECT_EQ(ok("-1.5").as_double(), -1.5);
  EXPECT_EQ(ok("+0.25").as_double(), 0.25);
  EXPECT_EQ(ok("0.0").as_double(), 0.0);
  EXPECT_EQ(ok("1e3").as_double(), 1000.0);
  EXPECT_EQ(ok("1E3").as_double(), 1000.0);
  EXPECT_EQ(ok("1e+3").as_double(), 1000.0);
  EXPECT_EQ(ok("2.5e-3").as_double(), 0.0025);
  EXPECT_EQ(ok("1.").as_double(), 1.0);
  EXPECT_EQ(ok("1.5M").as_double(), 1.5);
  EXPECT_EQ(ok("3M").as_double(), 3.0);
  EXPECT_EQ(ok("3M").kind(), Kind::kFloat);
  EXPECT_EQ(ok("1.0").kind(), Kind::kFloat);
  EXPECT_FALSE(ok("1.0").as_int().has_value());
  EXPECT_TRUE(std::signbit(*ok("-0.0").as_double()));
  EXPECT_NE(ok("-0.0"), ok("0.0"));
  // Out of double range: infinity or zero, as Clojure's reader gives.
  EXPECT_EQ(ok("1e400").as_double(), INFINITY);
  EXPECT_EQ(ok("-1.5e999").as_double(), -INFINITY);
  EXPECT_EQ(ok("1e-400").as_double(), 0.0);
  EXPECT_TRUE(std::signbit(*ok("-1e-400").as_double()));
  EXPECT_EQ(ok("0.000001e-400").as_double(), 0.0);
}

TEST(EdnScalars, SymbolicFloats) {
  EXPECT_TRUE(std::isnan(*ok("##NaN").as_double()));
  EXPECT_EQ(ok("##Inf").as_double(), INFINITY);
  EXPECT_EQ(ok("##-Inf").as_double(), -INFINITY);
  EXPECT_EQ(ok("##NaN"), ok("##NaN"));  // structural equality: NaN equals NaN
  EXPECT_EQ(round_trip("[##NaN ##Inf ##-Inf]"), "[##NaN ##Inf ##-Inf]");
  EXPECT_EQ(ok("{:challenge ##NaN}").get("challenge")->kind(), Kind::kFloat);
  EXPECT_EQ(err("##nan"), "line 1, column 1: expected ##NaN, ##Inf or ##-Inf, found '##nan'");
  EXPECT_EQ(err("[##]"), "line 1, column 2: expected ##NaN, ##Inf or ##-Inf, found '##'");
}

TEST(EdnScalars, FloatPrinting) {
  EXPECT_EQ(to_string(Value::floating(1.0)), "1.0");
  EXPECT_EQ(to_string(Value::floating(-0.0)), "-0.0");
  EXPECT_EQ(to_string(Value::floating(0.1)), "0.1");
  EXPECT_EQ(to_string(Value::floating(1e300)), "1e+300");
  EXPECT_EQ(to_string(Value::floating(123456789.0)), "123456789.0");
  for (const char* text : {"0.1", "1e-300", "4.9e-324", "1.7976931348623157e308", "3.141592653589793", "-2.5",
                           "100000000000000000000.0", "1.5M"}) {
    round_trip(text);
  }
}

TEST(EdnScalars, NumberErrors) {
  EXPECT_EQ(err("007"), "line 1, column 1: expected a number, found '007' (leading zeros are not allowed)");
  EXPECT_EQ(err("-01.5"), "line 1, column 1: expected a number, found '-01.5' (leading zeros are not allowed)");
  EXPECT_EQ(err("0x1F"), "line 1, column 1: expected a number, found '0x1F' (hexadecimal numbers are not EDN)");
  EXPECT_EQ(err("2r101"), "line 1, column 1: expected a number, found '2r101' (radix numbers are not EDN)");
  EXPECT_EQ(err("[1/2]"), "line 1, column 2: expected a number, found '1/2' (ratios are not supported)");
  EXPECT_EQ(err("1e"), "line 1, column 1: expected a number, found '1e' (the exponent has no digits)");
  EXPECT_EQ(err("1e+"), "line 1, column 1: expected a number, found '1e+' (the exponent has no digits)");
  EXPECT_EQ(err("1.5N"), "line 1, column 1: expected a number, found '1.5N'");
  EXPECT_EQ(err("12abc"), "line 1, column 1: expected a number, found '12abc'");
  EXPECT_EQ(err("1.2.3"), "line 1, column 1: expected a number, found '1.2.3'");
  EXPECT_EQ(err(".5"),
            "line 1, column 1: expected a number or a symbol, found '.5' (a number needs a digit before '.')");
  // A sign without a digit is a symbol.
  EXPECT_EQ(ok("-").kind(), Kind::kSymbol);
  EXPECT_EQ(ok("+").kind(), Kind::kSymbol);
  EXPECT_EQ(ok("-abc").text(), "-abc");
  EXPECT_EQ(ok("-.5").kind(), Kind::kSymbol);
}

TEST(EdnScalars, Strings) {
  EXPECT_EQ(ok(R"("")").as_string(), "");
  EXPECT_EQ(ok(R"("Fireball")").as_string(), "Fireball");
  EXPECT_EQ(ok(R"("a\tb\rc\nd\\e\"f\bg\fh")").as_string(), "a\tb\rc\nd\\e\"f\bg\fh");
  EXPECT_EQ(ok(R"("\u00e9\u00C9")").as_string(), "\xC3\xA9\xC3\x89");
  EXPECT_EQ(ok(R"("\u20AC")").as_string(), "\xE2\x82\xAC");
  EXPECT_EQ(ok(R"("\uD83D\uDE00")").as_string(), "\xF0\x9F\x98\x80");  // surrogate pair -> U+1F600
  EXPECT_EQ(ok(R"("\u0000")").as_string(), std::string(1, '\0'));
  EXPECT_EQ(ok("\"caf\xC3\xA9 \xF0\x9F\x90\x89\"").as_string(), "caf\xC3\xA9 \xF0\x9F\x90\x89");
  EXPECT_EQ(ok("\"two\nlines\"").as_string(), "two\nlines");
  EXPECT_EQ(ok(R"("; not a comment, #_ nor a discard")").as_string(), "; not a comment, #_ nor a discard");
  EXPECT_EQ(ok("\"a\"").kind(), Kind::kString);
  EXPECT_FALSE(ok(":a").as_string().has_value());
}

TEST(EdnScalars, StringPrinting) {
  EXPECT_EQ(to_string(Value::string("a\"b\\c\nd\te\rf\bg\fh")), R"("a\"b\\c\nd\te\rf\bg\fh")");
  EXPECT_EQ(to_string(Value::string(std::string("\x01\x7F", 2))), "\"\\u0001\x7F\"");
  EXPECT_EQ(to_string(Value::string("caf\xC3\xA9")), "\"caf\xC3\xA9\"");
  EXPECT_EQ(to_string(Value::string("bad \xFF byte")), "\"bad \xEF\xBF\xBD byte\"");
  round_trip(R"("\u0000\u001f \uD83D\uDE00 tab\t")");
}

TEST(EdnScalars, StringErrors) {
  EXPECT_EQ(err(R"("abc)"),
            "line 1, column 5: expected '\"' to close the string opened at line 1, column 1, "
            "found end of input");
  EXPECT_EQ(err("[\"a\nb"),
            "line 2, column 2: expected '\"' to close the string opened at line 1, column 2, "
            "found end of input");
  EXPECT_EQ(err(R"("a\)"),
            "line 1, column 3: expected '\"' to close the string opened at line 1, column 1, "
            "found end of input");
  EXPECT_EQ(err(R"("bad \q escape")"),
            "line 1, column 6: expected one of \\t \\r \\n \\\\ \\\" \\b \\f \\uXXXX in the string, found '\\' then "
            "'q'");
  EXPECT_EQ(err(R"("\/")"),
            "line 1, column 2: expected one of \\t \\r \\n \\\\ \\\" \\b \\f \\uXXXX in the string, found '\\' then "
            "'/'");
  EXPECT_EQ(err(R"("\u12")"), "line 1, column 2: expected four hex digits after \\u in the string, found '1'");
  EXPECT_EQ(err(R"("\u12G4")"), "line 1, column 2: expected four hex digits after \\u in the string, found '1'");
  EXPECT_EQ(err(R"("x\uD83Dy")"),
            "line 1, column 3: expected a low surrogate \\uDC00-\\uDFFF after the high surrogate \\uD83D");
  EXPECT_EQ(err(R"("\uD83D\u0041")"),
            "line 1, column 2: expected a low surrogate \\uDC00-\\uDFFF after the high surrogate \\uD83D");
  EXPECT_EQ(err(R"("\uDE00")"), "line 1, column 2: expected a high surrogate before the low surrogate \\uDE00");
}

TEST(EdnScalars, InvalidUtf8InStrings) {
  // Columns count code points: "é" is one column.
  EXPECT_EQ(err("\"\xC3\xA9\xFF\""),
            "line 1, column 3: expected UTF-8 text in the string, found invalid UTF-8 "
            "byte 0xff");
  EXPECT_EQ(err("\"\xC0\xAF\""),
            "line 1, column 2: expected UTF-8 text in the string, found invalid UTF-8 byte "
            "0xc0");  // overlong '/'
  EXPECT_EQ(err("\"\xED\xA0\x80\""),
            "line 1, column 2: expected UTF-8 text in the string, found invalid UTF-8 "
            "byte 0xed");  // encoded surrogate
  EXPECT_EQ(err("\"\xF4\x90\x80\x80\""),
            "line 1, column 2: expected UTF-8 text in the string, found invalid "
            "UTF-8 byte 0xf4");  // above U+10FFFF
  EXPECT_EQ(err("\"ab\xE2\x82\""),
            "line 1, column 4: expected UTF-8 text in the string, found invalid UTF-8 byte "
            "0xe2");  // truncated
  EXPECT_EQ(err("\n  \"\x80\""),
            "line 2, column 4: expected UTF-8 text in the string, found invalid UTF-8 byte "
            "0x80");
}

TEST(EdnScalars, Characters) {
  EXPECT_EQ(ok("\\a").as_char(), U'a');
  EXPECT_EQ(ok("\\A").as_char(), U'A');
  EXPECT_EQ(ok("\\newline").as_char(), U'\n');
  EXPECT_EQ(ok("\\space").as_char(), U' ');
  EXPECT_EQ(ok("\\tab").as_char(), U'\t');
  EXPECT_EQ(ok("\\return").as_char(), U'\r');
  EXPECT_EQ(ok("\\backspace").as_char(), U'\b');
  EXPECT_EQ(ok("\\formfeed").as_char(), U'\f');
  EXPECT_EQ(ok("\\u00e9").as_char(), U'\u00e9');
  EXPECT_EQ(ok("\\u").as_char(), U'u');
  EXPECT_EQ(ok("\\o101").as_char(), U'A');
  EXPECT_EQ(ok("\\o").as_char(), U'o');
  EXPECT_EQ(ok("\\\xC3\xA9").as_char(), U'\u00e9');
  EXPECT_EQ(ok("\\\xF0\x9F\x90\x89").as_char(), U'\U0001F409');
  EXPECT_EQ(ok("\\\\").as_char(), U'\\');
  EXPECT_EQ(ok("\\\"").as_char(), U'"');
  EXPECT_EQ(ok("\\(").as_char(), U'(');
  EXPECT_EQ(ok("\\,").as_char(), U',');
  EXPECT_EQ(ok("\\a").kind(), Kind::kCharacter);
  const Value v = ok("[\\a\\b \\c]");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v.items()[1].as_char(), U'b');
  EXPECT_EQ(ok("(\\))").items()[0].as_char(), U')');
  EXPECT_EQ(round_trip("[\\a \\newline \\space \\tab \\return \\backspace \\formfeed \\u0000 \\, \\( \\\" \\\\ "
                       "\\\xC3\xA9 \\\xF0\x9F\x90\x89 \\u007f]"),
            "[\\a \\newline \\space \\tab \\return \\backspace \\formfeed \\u0000 \\u002c \\( \\\" \\\\ \\\xC3\xA9 "
            "\\\xF0\x9F\x90\x89 \\u007f]");
}

TEST(EdnScalars, CharacterErrors) {
  EXPECT_EQ(err("\\"), "line 1, column 1: expected a character after '\\', found end of input");
  EXPECT_EQ(err("[\\ ]"), "line 1, column 3: expected a character after '\\', found a space");
  EXPECT_EQ(err("\\\n"), "line 1, column 2: expected a character after '\\', found a newline");
  EXPECT_EQ(err("\\foo"),
            "line 1, column 1: expected a character name (newline, space, tab, return, backspace, "
            "formfeed, uXXXX, oNNN) after '\\', found 'foo'");
  EXPECT_EQ(err("\\uD800"), "line 1, column 1: expected a character, found the surrogate 'uD800'");
  EXPECT_EQ(err("\\o400"), "line 1, column 1: expected an octal character \\o0 to \\o377, found 'o400'");
  EXPECT_EQ(err("\\u12"),
            "line 1, column 1: expected a character name (newline, space, tab, return, backspace, "
            "formfeed, uXXXX, oNNN) after '\\', found 'u12'");
  EXPECT_EQ(err("\\\xFF"), "line 1, column 2: expected a character after '\\', found invalid UTF-8 byte 0xff");
}

TEST(EdnScalars, Keywords) {
  const Value k = ok(":name");
  EXPECT_EQ(k.kind(), Kind::kKeyword);
  EXPECT_EQ(k.text(), "name");
  EXPECT_EQ(k.name(), "name");
  EXPECT_EQ(k.ns(), "");
  EXPECT_TRUE(k.is_keyword("name"));
  const Value spells = ok(":orcpub.dnd.e5/spells");
  EXPECT_EQ(spells.ns(), "orcpub.dnd.e5");
  EXPECT_EQ(spells.name(), "spells");
  EXPECT_EQ(spells.text(), "orcpub.dnd.e5/spells");
  EXPECT_EQ(spells, Value::keyword("orcpub.dnd.e5", "spells"));
  EXPECT_EQ(to_string(spells), ":orcpub.dnd.e5/spells");
  EXPECT_EQ(ok(":hunter's-mark").name(), "hunter's-mark");
  EXPECT_EQ(ok(":5-foot-step").name(), "5-foot-step");
  EXPECT_EQ(ok(":a.b/c.d").ns(), "a.b");
  EXPECT_EQ(ok(":a:b").text(), "a:b");
  EXPECT_EQ(ok(":caf\xC3\xA9").name(), "caf\xC3\xA9");
  EXPECT_EQ(ok(":/").name(), "/");
  EXPECT_EQ(ok(":a/b/c").ns(), "a");  // written by ClojureScript's keyword function
  EXPECT_EQ(ok(":a/b/c").name(), "b/c");
  EXPECT_EQ(ok(":?!*+-_$%&=<>.#'|@~`").kind(), Kind::kKeyword);
  EXPECT_NE(ok(":a"), ok("a"));
  EXPECT_NE(ok(":a"), ok("\"a\""));
}

TEST(EdnScalars, KeywordErrors) {
  EXPECT_EQ(err(":"), "line 1, column 2: expected a keyword name after ':', found end of input");
  EXPECT_EQ(err("[: a]"), "line 1, column 3: expected a keyword name after ':', found a space");
  EXPECT_EQ(err("::auto"), "line 1, column 1: auto-resolved keywords ('::name') are not EDN");
  EXPECT_EQ(err(":a:"), "line 1, column 2: expected a keyword, found 'a:' (it ends with ':')");
  EXPECT_EQ(err(":/a"), "line 1, column 2: expected a keyword, found '/a' (empty namespace before '/')");
  EXPECT_EQ(err(":a/"), "line 1, column 2: expected a keyword, found 'a/' (empty name after '/')");
  EXPECT_EQ(err(":a:/b"), "line 1, column 2: expected a keyword, found 'a:/b' (the namespace ends with ':')");
  EXPECT_EQ(err(":ab\xFF"), "line 1, column 4: expected UTF-8 text in the keyword, found invalid UTF-8 byte 0xff");
}

TEST(EdnScalars, Symbols) {
  const Value s = ok("clojure.core/map");
  EXPECT_EQ(s.kind(), Kind::kSymbol);
  EXPECT_EQ(s.ns(), "clojure.core");
  EXPECT_EQ(s.name(), "map");
  EXPECT_EQ(ok("/").name(), "/");
  EXPECT_EQ(ok("/").ns(), "");
  EXPECT_EQ(ok("clojure.core//").name(), "/");
  EXPECT_EQ(ok("a-b?").text(), "a-b?");
  EXPECT_EQ(ok("<=>").text(), "<=>");
  EXPECT_EQ(ok("x#y").text(), "x#y");
  EXPECT_EQ(ok("\xC3\xA9t\xC3\xA9").text(), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(Value::symbol("a", "b"), ok("a/b"));
  EXPECT_EQ(err("/a"), "line 1, column 1: expected a symbol, found '/a' (empty namespace before '/')");
  EXPECT_EQ(err("'quoted"), "line 1, column 1: expected a value, found '''");
  EXPECT_EQ(err("@deref"), "line 1, column 1: expected a value, found '@'");
  EXPECT_EQ(err("^{:a 1} x"), "line 1, column 1: metadata ('^') is not EDN");
  EXPECT_EQ(err("a\x01"),
            "line 1, column 2: expected end of input after the value, found control character "
            "U+0001");
  EXPECT_EQ(err(std::string("a\0", 2)),
            "line 1, column 2: expected end of input after the value, found control "
            "character U+0000");
  EXPECT_EQ(err(std::string("\0", 1)), "line 1, column 1: expected a value, found control character U+0000");
}

// --- collections ---

TEST(EdnCollections, ListsVectorsSets) {
  const Value l = ok("(1 2 3)");
  EXPECT_EQ(l.kind(), Kind::kList);
  EXPECT_EQ(l.size(), 3u);
  EXPECT_EQ(l.items()[2].as_int(), 3);
  const Value v = ok("[1, \"two\" :three [4]]");
  EXPECT_EQ(v.kind(), Kind::kVector);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v.items()[1].as_string(), "two");
  EXPECT_TRUE(v.items()[2].is_keyword("three"));
  EXPECT_EQ(v.items()[3].items()[0].as_int(), 4);
  const Value s = ok("#{:a :b}");
  EXPECT_EQ(s.kind(), Kind::kSet);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(ok("()").size(), 0u);
  EXPECT_EQ(ok("[]").kind(), Kind::kVector);
  EXPECT_EQ(ok("#{}").kind(), Kind::kSet);
  EXPECT_NE(ok("(1 2)"), ok("[1 2]"));
  EXPECT_NE(ok("[1 2]"), ok("[2 1]"));
  EXPECT_EQ(ok("[1 2]"), Value::vector({Value::integer(1), Value::integer(2)}));
  EXPECT_EQ(ok("1").size(), 0u);
  EXPECT_FALSE(ok("1").is_collection());
  EXPECT_EQ(round_trip("(a [b #{c}] {:d (e)})"), "(a [b #{c}] {:d (e)})");
}

TEST(EdnCollections, Maps) {
  const Value m = ok(R"({:key :fireball, :name "Fireball", :level 3, "str" 1, [1 2] {:nested true}, nil nil})");
  EXPECT_EQ(m.kind(), Kind::kMap);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_TRUE(m.get("key")->is_keyword("fireball"));
  EXPECT_EQ(m.get("name")->as_string(), "Fireball");
  EXPECT_EQ(m.get("level")->as_int(), 3);
  EXPECT_EQ(m.get("missing"), nullptr);
  EXPECT_EQ(m.get("str"), nullptr);  // get() looks up keywords only
  EXPECT_EQ(m.find(Value::string("str"))->as_int(), 1);
  EXPECT_EQ(m.find(ok("[1 2]"))->get("nested")->as_bool(), true);
  EXPECT_TRUE(m.find(Value())->is_nil());
  EXPECT_EQ(ok("[1]").get("a"), nullptr);
  // Insertion order is kept.
  std::vector<std::string> keys;
  for (const auto& [key, value] : m.entries()) {
    keys.push_back(to_string(key));
    (void)value;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{":key", ":name", ":level", "\"str\"", "[1 2]", "nil"}));
  EXPECT_EQ(m.items().size(), 12u);
  EXPECT_EQ(m.entries().size(), 6u);
  EXPECT_EQ(ok("[1]").entries().size(), 0u);
  EXPECT_EQ(to_string(ok("{:b 1 :a 2}")), "{:b 1, :a 2}");
  EXPECT_EQ(to_string(ok("{}")), "{}");
  EXPECT_EQ(Value::map({kw("a"), Value::integer(1)}), ok("{:a 1}"));
}

TEST(EdnCollections, NamespacedMaps) {
  const Value m = ok("#:orcpub.dnd.e5{:spells 1, :b/x 2, :_/plain 3, sym 4, \"s\" 5}");
  EXPECT_EQ(m.get("orcpub.dnd.e5/spells")->as_int(), 1);
  EXPECT_EQ(m.get("b/x")->as_int(), 2);
  EXPECT_EQ(m.get("plain")->as_int(), 3);
  EXPECT_EQ(m.find(Value::symbol("orcpub.dnd.e5", "sym"))->as_int(), 4);
  EXPECT_EQ(m.find(Value::string("s"))->as_int(), 5);
  EXPECT_EQ(ok("#:a {:b 1}"), ok("{:a/b 1}"));
  EXPECT_EQ(round_trip("#:a{:b 1}"), "{:a/b 1}");
  EXPECT_EQ(err("#::{:a 1}"), "line 1, column 1: auto-resolved namespaced maps ('#::{...}') are not EDN");
  EXPECT_EQ(err("#:a[1]"), "line 1, column 4: expected '{' after the namespace 'a', found '['");
  EXPECT_EQ(err("#:{:a 1}"), "line 1, column 3: expected a namespace after '#:', found '{'");
  EXPECT_EQ(err("#:a/b{:a 1}"), "line 1, column 3: expected a namespace after '#:', found 'a/b'");
  EXPECT_EQ(err("#:\xEF\xBB\xBFns{}"), "line 1, column 3: expected a namespace after '#:', found '\xEF\xBB\xBFns'");
  // A key that loses the namespace "_" must still read back as itself.
  EXPECT_EQ(ok("#:a{:_/b/c 1}").get("b/c")->as_int(), 1);
  EXPECT_EQ(ok("#:a{:_/b/c 1}").entries().begin().operator*().key.ns(), "b");
  EXPECT_EQ(ok("#:a{:_/5 1}").get("5")->as_int(), 1);
  EXPECT_EQ(err("#:a{_/5 1}"), "line 1, column 7: expected a symbol after '_/', found '5'");
  EXPECT_EQ(err("#:a{_/nil 1}"), "line 1, column 7: expected a symbol after '_/', found 'nil'");
  EXPECT_EQ(err("#:a{:_/b/ 1}"), "line 1, column 8: expected a keyword, found 'b/' (empty name after '/')");
  EXPECT_EQ(err("#:a{:_//x 1}"), "line 1, column 8: expected a keyword, found '/x' (empty namespace before '/')");
  // What is left after ':_/' must be a keyword of its own: "::i" is not (fuzz/corpus/edn/namespace-drop-colon).
  EXPECT_EQ(err("#:o{:_/:i $}"), "line 1, column 8: expected a keyword name after ':_/', found ':i'");
  // Keys that become equal are duplicates.
  ParseReport report;
  ASSERT_TRUE(parse("#:a{:b 1 :a/b 2}", {}, &report));
  EXPECT_EQ(report.duplicate_map_keys, 1u);
}

TEST(EdnCollections, DuplicateMapKeysKeepTheLastValue) {
  ParseReport report;
  auto r = parse("{:a 1\n :b 2\n :a 3\n :a 4}", {}, &report);
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(to_string(*r), "{:a 4, :b 2}");
  EXPECT_EQ(report.duplicate_map_keys, 2u);
  EXPECT_EQ(report.duplicate_set_elements, 0u);
  EXPECT_EQ(report.warnings, (std::vector<std::string>{
                                 "line 3, column 2: duplicate map key :a (the last value is kept)",
                                 "line 4, column 2: duplicate map key :a (the last value is kept)",
                             }));
  // Without a report the same input parses the same.
  EXPECT_EQ(ok("{:a 1 :b 2 :a 3 :a 4}"), *r);
  // Strict EDN.
  ParseOptions strict;
  strict.reject_duplicates = true;
  EXPECT_EQ(err("{:a 1\n :a 2}", strict), "line 2, column 2: duplicate map key :a (first at line 1, column 2)");
  EXPECT_TRUE(parse("{:a 1 :b 2}", strict));
}

TEST(EdnCollections, DuplicatesInLargeMapsAndSets) {
  // More than 16 entries takes the hashed path.
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += ":k" + std::to_string(i) + " " + std::to_string(i) + " ";
  for (int i = 0; i < 40; i += 2) text += ":k" + std::to_string(i) + " " + std::to_string(1000 + i) + " ";
  text += "}";
  ParseReport report;
  auto r = parse(text, {}, &report);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 40u);
  EXPECT_EQ(report.duplicate_map_keys, 20u);
  EXPECT_EQ(r->get("k0")->as_int(), 1000);
  EXPECT_EQ(r->get("k1")->as_int(), 1);
  EXPECT_EQ(r->get("k38")->as_int(), 1038);
  EXPECT_TRUE(r->items()[0].is_keyword("k0"));  // the first occurrence keeps its place
  EXPECT_TRUE(r->items()[78].is_keyword("k39"));

  std::string set = "#{";
  for (int i = 0; i < 30; ++i) set += std::to_string(i % 20) + " [" + std::to_string(i % 20) + "] ";
  set += "}";
  ParseReport set_report;
  auto s = parse(set, {}, &set_report);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->size(), 40u);
  EXPECT_EQ(set_report.duplicate_set_elements, 20u);
  EXPECT_EQ(set_report.warnings.size(), 20u);
  EXPECT_EQ(set_report.warnings[0], "line 1, column 143: duplicate set element 0 (dropped)");

  ParseReport small;
  ASSERT_TRUE(parse("#{1 2 1 (1) (1)}", {}, &small));
  EXPECT_EQ(small.duplicate_set_elements, 2u);
  EXPECT_EQ(to_string(*parse("#{1 2 1 (1) (1)}")), "#{1 2 (1)}");
  ParseOptions strict;
  strict.reject_duplicates = true;
  EXPECT_EQ(err("#{1 2 1}", strict), "line 1, column 7: duplicate set element 1 (first at line 1, column 3)");
  // Nested duplicates are all counted; the warnings are in text order.
  ParseReport nested;
  ASSERT_TRUE(parse("{:x {:a 1 :a 2} :x {:b 1 :b 2}}", {}, &nested));
  EXPECT_EQ(nested.duplicate_map_keys, 3u);
  ASSERT_EQ(nested.warnings.size(), 3u);
  EXPECT_EQ(nested.warnings[0], "line 1, column 11: duplicate map key :a (the last value is kept)");
  EXPECT_EQ(nested.warnings[1], "line 1, column 17: duplicate map key :x (the last value is kept)");
}

TEST(EdnCollections, WarningsAreCapped) {
  std::string text = "{";
  for (int i = 0; i < 300; ++i) text += ":a " + std::to_string(i) + " ";
  text += "}";
  ParseReport report;
  auto r = parse(text, {}, &report);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get("a")->as_int(), 299);
  EXPECT_EQ(report.duplicate_map_keys, 299u);
  EXPECT_EQ(report.warnings.size(), ParseReport::kMaxWarnings);
}

TEST(EdnCollections, UnbalancedBrackets) {
  EXPECT_EQ(err("[1 2"),
            "line 1, column 5: expected ']' to close the vector opened at line 1, column 1, found end "
            "of input");
  EXPECT_EQ(err("{:a [1 2)}"),
            "line 1, column 9: expected ']' to close the vector opened at line 1, column 5, "
            "found ')'");
  EXPECT_EQ(err("(1\n 2\n"),
            "line 3, column 1: expected ')' to close the list opened at line 1, column 1, found "
            "end of input");
  EXPECT_EQ(err("#{1 2]"), "line 1, column 6: expected '}' to close the set opened at line 1, column 1, found ']'");
  EXPECT_EQ(err("{:a 1"),
            "line 1, column 6: expected '}' to close the map opened at line 1, column 1, found end of "
            "input");
  EXPECT_EQ(err("[1 2]]"), "line 1, column 6: expected end of input after the value, found ']'");
  EXPECT_EQ(err(")"), "line 1, column 1: expected a value, found ')'");
  EXPECT_EQ(err(""), "line 1, column 1: expected a value, found end of input");
  EXPECT_EQ(err("  ; only a comment\n"), "line 2, column 1: expected a value, found end of input");
}

TEST(EdnCollections, OddMapForms) {
  EXPECT_EQ(err("{:a 1 :b}"), "line 1, column 9: expected a value for the map key :b at line 1, column 7, found '}'");
  EXPECT_EQ(err("{:a}"), "line 1, column 4: expected a value for the map key :a at line 1, column 2, found '}'");
  EXPECT_EQ(err("{:a 1\n #_:b :c}"),
            "line 2, column 9: expected a value for the map key :c at line 2, column 7, "
            "found '}'");
  // A discarded form does not count.
  EXPECT_EQ(to_string(ok("{:a #_:b 1}")), "{:a 1}");
}

// --- dispatch, whitespace, comments ---

TEST(EdnSyntax, DiscardCommentsCommas) {
  EXPECT_EQ(to_string(ok("[1 #_2 3]")), "[1 3]");
  EXPECT_EQ(to_string(ok("[1 #_ #_ 2 3 4]")), "[1 4]");  // nested discards
  EXPECT_EQ(to_string(ok("[1 #_[2 #_3 (4)] 5]")), "[1 5]");
  EXPECT_EQ(to_string(ok("[#_1]")), "[]");
  EXPECT_EQ(to_string(ok("#_ :dropped :kept")), ":kept");
  EXPECT_EQ(to_string(ok(":kept #_ :dropped")), ":kept");
  EXPECT_EQ(to_string(ok("; comment\n[1 ; two\n 3] ; end")), "[1 3]");
  EXPECT_EQ(to_string(ok("[1;c\n2]")), "[1 2]");
  EXPECT_EQ(to_string(ok(",,[,1,,2,],,")), "[1 2]");
  EXPECT_EQ(to_string(ok("\t\r\n\f\v[1]\r\n")), "[1]");
  EXPECT_EQ(err("[1 #_]"), "line 1, column 6: expected a form to discard after #_, found ']'");
  EXPECT_EQ(err("#_"), "line 1, column 3: expected a form to discard after #_, found end of input");
  EXPECT_EQ(err("#_ 1"), "line 1, column 5: expected a value, found end of input");
  EXPECT_EQ(err("#_ [1"),
            "line 1, column 6: expected ']' to close the vector opened at line 1, column 4, found end "
            "of input");
}

TEST(EdnSyntax, ByteOrderMark) {
  EXPECT_EQ(to_string(ok("\xEF\xBB\xBF{:a 1}")), "{:a 1}");
  // Columns on the first line do not count the mark.
  EXPECT_EQ(err("\xEF\xBB\xBF[1 2"),
            "line 1, column 5: expected ']' to close the vector opened at line 1, column 1, "
            "found end of input");
  // Only a leading mark is skipped.
  EXPECT_EQ(err("[\xEF\xBB\xBF]"),
            "line 1, column 2: expected a value, found a byte order mark (U+FEFF) after the "
            "start");
  EXPECT_EQ(err("\xEF\xBB\xBF\xEF\xBB\xBF"
                "1"),
            "line 1, column 1: expected a value, found a byte order mark (U+FEFF) after the start");
  EXPECT_EQ(ok("[a\xEF\xBB\xBF]").items()[0].text(), "a\xEF\xBB\xBF");  // inside a symbol it is a constituent
}

TEST(EdnSyntax, TaggedValues) {
  const Value inst = ok(R"(#inst "1985-04-12T23:20:50.52Z")");
  EXPECT_EQ(inst.kind(), Kind::kTagged);
  EXPECT_EQ(inst.text(), "inst");
  EXPECT_EQ(inst.name(), "inst");
  EXPECT_EQ(inst.tagged_value().as_string(), "1985-04-12T23:20:50.52Z");
  EXPECT_EQ(inst.items().size(), 1u);
  EXPECT_EQ(to_string(inst), R"(#inst "1985-04-12T23:20:50.52Z")");
  for (const char* good : {"1985", "1985-04", "1985-04-12", "1985-04-12T23", "1985-04-12T23:20", "1985-04-12T23:20:50",
                           "1985-04-12T23:20:50.123456789", "1985-04-12T23:20:50-08:00", "2024-02-29T00:00:00+05:30",
                           "1985-04-12T23:20:60Z", "2000-02-29"}) {
    EXPECT_TRUE(parse(std::string("#inst \"") + good + "\"")) << good;
  }
  for (const char* bad : {"", "85", "1985-4-12", "1985-13-01", "1985-00-01", "1985-04-31", "2023-02-29", "1900-02-29",
                          "1985-04-12T24:00", "1985-04-12t23:20", "1985-04-12T23:20:50.", "1985-04-12Z1",
                          "1985-04-12T23:20:50+0800", "1985-04-12T23:20:50 "}) {
    EXPECT_FALSE(parse(std::string("#inst \"") + bad + "\"")) << bad;
  }
  EXPECT_EQ(err("#inst \"yesterday\""),
            "line 1, column 1: expected an RFC 3339 timestamp after #inst, found \"yesterday\"");
  EXPECT_EQ(err("#inst 1985"), "line 1, column 1: expected a string after #inst, found 1985");

  const Value uuid = ok(R"(#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")");
  EXPECT_EQ(uuid.text(), "uuid");
  EXPECT_EQ(uuid.tagged_value().as_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
  EXPECT_TRUE(parse(R"(#uuid "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")"));
  EXPECT_EQ(err(R"(#uuid "f81d4fae7dec11d0a76500a0c91e6bf6")"),
            "line 1, column 1: expected a UUID (8-4-4-4-12 hex) after #uuid, found "
            "\"f81d4fae7dec11d0a76500a0c91e6bf6\"");
  EXPECT_FALSE(parse(R"(#uuid "g81d4fae-7dec-11d0-a765-00a0c91e6bf6")"));

  const Value custom = ok("#myapp/Person {:first \"Fred\"}");
  EXPECT_EQ(custom.kind(), Kind::kTagged);
  EXPECT_EQ(custom.ns(), "myapp");
  EXPECT_EQ(custom.name(), "Person");
  EXPECT_EQ(custom.tagged_value().get("first")->as_string(), "Fred");
  EXPECT_EQ(round_trip("#a #b [1 #c 2]"), "#a #b [1 #c 2]");
  EXPECT_EQ(to_string(ok("#foo #_ 1 2")), "#foo 2");
  EXPECT_EQ(to_string(ok("#foo;c\n2")), "#foo 2");
  EXPECT_EQ(ok("#foo 1"), Value::tagged("foo", Value::integer(1)));
  EXPECT_NE(ok("#foo 1"), ok("#bar 1"));
  EXPECT_TRUE(Value::integer(1).tagged_value().is_nil());
  EXPECT_EQ(err("#foo"), "line 1, column 5: expected a value after the tag, found end of input");
  EXPECT_EQ(err("[#foo]"), "line 1, column 6: expected a value after the tag, found ']'");
}

TEST(EdnSyntax, UnsupportedDispatch) {
  EXPECT_EQ(err("#\"re\""), "line 1, column 1: regular expressions ('#\"...\"') are not EDN");
  EXPECT_EQ(err("#(inc %)"), "line 1, column 1: anonymous functions ('#(...)') are not EDN");
  EXPECT_EQ(err("#'var"), "line 1, column 1: var quotes ('#'') are not EDN");
  EXPECT_EQ(err("#?(:clj 1)"), "line 1, column 1: reader conditionals ('#?') are not EDN");
  EXPECT_EQ(err("#=(+ 1 2)"), "line 1, column 1: read-time evaluation ('#=') is not EDN");
  EXPECT_EQ(err("#1"), "line 1, column 2: expected a tag, '{', '_', '#' or ':' after '#', found '1'");
  EXPECT_EQ(err("#"), "line 1, column 2: expected a dispatch character after '#', found end of input");
  EXPECT_EQ(err("# foo"), "line 1, column 2: expected a tag, '{', '_', '#' or ':' after '#', found a space");
}

TEST(EdnSyntax, ColumnsCountCodePoints) {
  // "é" and "🐉" are one column each; a tab is one column.
  EXPECT_EQ(err("[\"\xC3\xA9\" \"\xF0\x9F\x90\x89\"\t)"),
            "line 1, column 10: expected ']' to close the vector opened at line 1, column 1, found ')'");
  EXPECT_EQ(err("{:a 1\r\n :b}"),
            "line 2, column 4: expected a value for the map key :b at line 2, column 2, found "
            "'}'");
  // A message never carries malformed UTF-8 or raw control characters from the input.
  EXPECT_EQ(err("\\x\xFF\x01"),
            "line 1, column 1: expected a character name (newline, space, tab, return, backspace, formfeed, uXXXX, "
            "oNNN) after '\\', found 'x\\xff'");
  EXPECT_EQ(err("12\xC3\xA9"), "line 1, column 1: expected a number, found '12\xC3\xA9'");
  EXPECT_EQ(err("#:\xFF{}"), "line 1, column 3: expected UTF-8 text in the namespace, found invalid UTF-8 byte 0xff");
}

// --- depth ---

TEST(EdnDepth, NestingLimit) {
  const std::string ok_deep = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(parse(ok_deep));
  const std::string too_deep = std::string(513, '[') + std::string(513, ']');
  EXPECT_EQ(err(too_deep), "line 1, column 513: nesting deeper than 512 levels");
  // Far deeper input fails the same way without exhausting the stack.
  const std::string huge = std::string(1'000'000, '(');
  EXPECT_EQ(err(huge), "line 1, column 513: nesting deeper than 512 levels");
  std::string tags;
  for (int i = 0; i < 600; ++i) tags += "#t ";
  EXPECT_EQ(err(tags + "1"), "line 1, column 1537: nesting deeper than 512 levels");
  std::string discards;
  for (int i = 0; i < 600; ++i) discards += "#_";
  EXPECT_EQ(err(discards + "1"), "line 1, column 1025: nesting deeper than 512 levels");
  std::string sets;
  for (int i = 0; i < 600; ++i) sets += "#{";
  EXPECT_EQ(err(sets), "line 1, column 1025: nesting deeper than 512 levels");
  ParseOptions shallow;
  shallow.max_depth = 2;
  EXPECT_TRUE(parse("[[1]]", shallow));
  EXPECT_EQ(err("[[[1]]]", shallow), "line 1, column 3: nesting deeper than 2 levels");
  EXPECT_EQ(err("{:a {:b {}}}", shallow), "line 1, column 9: nesting deeper than 2 levels");
}

// Every value counts, however short, collections and discarded forms too: the tree's size is bounded, not only the
// text's.
TEST(EdnLimits, ValuesAreCounted) {
  ParseOptions few;
  few.max_values = 4;
  EXPECT_TRUE(parse("[0 0 0]", few));  // the vector and its three elements
  EXPECT_EQ(err("[0 0 0 0]", few), "line 1, column 8: more than 4 values");
  EXPECT_EQ(err("[0 #_0 0 0]", few), "line 1, column 10: more than 4 values");
  EXPECT_EQ(err("{:a {:b 0}}", few), "line 1, column 9: more than 4 values");
  auto all = parse_all("0 0 0 0 0", few);
  ASSERT_FALSE(all);
  EXPECT_NE(all.status().message().find("more than 4 values"), std::string::npos) << all.status().message();
}

// --- API ---

TEST(EdnApi, ParseAll) {
  auto r = parse_all("1 :two \"three\" [4] #_5 ; six\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].as_int(), 1);
  EXPECT_TRUE((*r)[1].is_keyword("two"));
  EXPECT_EQ((*r)[3].kind(), Kind::kVector);
  auto empty = parse_all("  ; nothing\n #_ 1 ");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  auto bad = parse_all("1 2 )");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(), "line 1, column 5: expected a value, found ')'");
  EXPECT_EQ(err("1 2"), "line 1, column 3: expected end of input after the value, found '2'");
}

TEST(EdnApi, KindNamesAndAccessors) {
  EXPECT_STREQ(kind_name(Kind::kMap), "map");
  EXPECT_STREQ(kind_name(Kind::kTagged), "tagged value");
  EXPECT_STREQ(kind_name(Kind::kCharacter), "character");
  const Value s = Value::string("x");
  EXPECT_FALSE(s.as_int().has_value());
  EXPECT_FALSE(s.as_double().has_value());
  EXPECT_FALSE(s.as_char().has_value());
  EXPECT_FALSE(s.as_bool().has_value());
  EXPECT_EQ(s.ns(), "");
  EXPECT_EQ(s.name(), "");
  EXPECT_TRUE(Value::integer(1).items().empty());
  EXPECT_EQ(Value::map({kw("odd")}).get("odd")->kind(), Kind::kNil);
  std::ostringstream os;
  os << ok("{:a [1 2.5 \"s\"]}");
  EXPECT_EQ(os.str(), "{:a [1 2.5 \"s\"]}");
  std::string out = "x=";
  print(ok("#{1}"), out);
  EXPECT_EQ(out, "x=#{1}");
}

TEST(EdnApi, HashIsConsistentWithEquality) {
  EXPECT_EQ(ok("{:a [1 2]}").hash(), ok("{:a [1, 2]}").hash());
  EXPECT_EQ(ok("##NaN").hash(), Value::floating(-std::nan("")).hash());
  EXPECT_EQ(ValueHash()(ok(":k")), ok(":k").hash());
  EXPECT_NE(ok("[1 2]").hash(), ok("[2 1]").hash());
}

// --- an OrcBrew-shaped document ---

TEST(EdnOrcBrew, SamplePack) {
  const char* text =
      "\xEF\xBB\xBF"
      R"({"Test Content Pack"
 {:orcpub.dnd.e5/spells
  {:magic-missile {:key :magic-missile, :name "Magic Missile", :level 1, :school "Evocation",
                   :description "Three glowing darts.", :option-pack "Test Content Pack"},
   :fireball {:key :fireball, :name "Fireball", :level 3, :school "Evocation", :concentration false,
              :ritual false, :components {:verbal true, :somatic true, :material-component "bat guano"},
              :spell-lists {:wizard true, :sorcerer true}, :option-pack "Test Content Pack"}},
  :orcpub.dnd.e5/monsters
  {:goblin {:key :goblin, :name "Goblin", :type :humanoid, :size :small, :challenge 0.25,
            :hit-points {:die 6, :die-count 2}, :option-pack "Test Content Pack"}
   :dragon-red-adult {:name "Adult Red Dragon", :challenge 17, :armor-class 19, :speed ##NaN}}}})";
  ParseReport report;
  auto r = parse(text, {}, &report);
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(report.duplicate_map_keys, 0u);
  ASSERT_EQ(r->size(), 1u);
  const auto& [book, types] = *r->entries().begin();
  EXPECT_EQ(book.as_string(), "Test Content Pack");
  const Value* spells = types.get("orcpub.dnd.e5/spells");
  ASSERT_NE(spells, nullptr);
  EXPECT_EQ(spells->size(), 2u);
  const Value* fireball = spells->get("fireball");
  ASSERT_NE(fireball, nullptr);
  EXPECT_EQ(fireball->get("level")->as_int(), 3);
  EXPECT_EQ(fireball->get("components")->get("material-component")->as_string(), "bat guano");
  EXPECT_EQ(fireball->get("concentration")->as_bool(), false);
  const Value* goblin = types.get("orcpub.dnd.e5/monsters")->get("goblin");
  EXPECT_EQ(goblin->get("challenge")->as_double(), 0.25);
  EXPECT_EQ(goblin->get("hit-points")->get("die-count")->as_int(), 2);
  std::vector<std::string> type_names;
  for (const auto& [type, entities] : types.entries()) {
    type_names.emplace_back(type.name());
    EXPECT_EQ(type.ns(), "orcpub.dnd.e5");
    EXPECT_EQ(entities.kind(), Kind::kMap);
  }
  EXPECT_EQ(type_names, (std::vector<std::string>{"spells", "monsters"}));
  round_trip(text);
}

}  // namespace
}  // namespace lorekeeper::edn
