#include "lorekeeper/model/spellcasting.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"

namespace lorekeeper::model {

namespace {

// The number a table cell starts with ("4", "3rd", "2/3" -> 2); nullopt for "—" or text.
std::optional<int> number_in(std::string_view cell) {
  cell = cell.substr(std::min(cell.size(), cell.find_first_not_of(" \t")));
  if (cell.empty() || !std::isdigit(static_cast<unsigned char>(cell[0]))) return std::nullopt;
  int n = 0;
  for (size_t i = 0; i < cell.size() && i < 3 && std::isdigit(static_cast<unsigned char>(cell[i])); ++i)
    n = n * 10 + (cell[i] - '0');
  return n;
}

// The same, 0 for "—" or text.
int leading_number(std::string_view cell) { return number_in(cell).value_or(0); }

// Text without Markdown emphasis ("*find familiar*" -> "find familiar").
std::string without_emphasis(std::string_view written) {
  std::string t(written);
  t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return c == '*' || c == '_'; }), t.end());
  return t;
}

// "(strength|dexterity|...)": the six abilities as one RE2 group, from model::ability_names().
std::string ability_group() { return "(" + text::join(ability_names(), "|") + ")"; }

// A cell that is a level: digits, optionally an ordinal suffix ("3", "3rd", "11th").
std::optional<int> level_cell(std::string_view cell) {
  const std::string t = text::lower(text::trim(cell));
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i > 2) return std::nullopt;
  const std::string rest = t.substr(i);
  if (!rest.empty() && rest != "st" && rest != "nd" && rest != "rd" && rest != "th") return std::nullopt;
  const int n = std::stoi(t.substr(0, i));
  if (n < 1 || n > 20) return std::nullopt;
  return n;
}

// The spell level a slot column's header names ("1st" .. "9th"); 0 for any other header.
int slot_column_level(const std::string& header) {
  const auto level = level_cell(header);
  return level && *level <= 9 && !std::isdigit(static_cast<unsigned char>(header.back())) ? *level : 0;
}

const json& field(const json& o, const char* name) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(name);
  return it == o.end() ? kNull : *it;
}

std::string string_at(const json& row, size_t i) {
  return row.is_array() && i < row.size() && row[i].is_string() ? row[i].get<std::string>() : std::string();
}

// The cells of a Markdown table line ("| a | b |" -> {"a", "b"}; the outer bars are optional).
std::vector<std::string> cells_of(std::string_view line) {
  std::string t = text::trim(line);
  if (!t.empty() && t.front() == '|') t.erase(0, 1);
  if (!t.empty() && t.back() == '|') t.pop_back();
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t bar = t.find('|', start);
    out.push_back(
        text::trim(std::string_view(t).substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return out;
}

// A table's separator line: bars, dashes (also em dashes), colons and spaces only.
bool separator_line(std::string_view line) {
  bool dash = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '-' || c == ':') {
      dash |= c == '-';
    } else if (line.substr(i, 3) == "\u2014") {
      dash = true;
      i += 2;
    } else if (c != '|' && c != ' ' && c != '\t') {
      return false;
    }
  }
  return dash;
}

bool table_line(std::string_view line) {
  const std::string t = text::trim(line);
  return t.find('|') != std::string::npos &&
         (t.front() == '|' || t.back() == '|' || t.find(" | ") != std::string::npos);
}

// The label a line before a table gives it: "**Arctic (table)**" -> "Arctic", "Table: Arid Land" -> "Arid Land",
// "### Oath of Devotion Spells" -> that; empty for a sentence.
std::string label_of(std::string_view line) {
  std::string t = text::trim(line);
  if (t.empty() || t.size() > 60 || t.back() == '.' || t.back() == ':') return "";
  for (const char* mark : {"**", "__"}) {
    for (size_t at; (at = t.find(mark)) != std::string::npos;) t.erase(at, 2);
  }
  while (!t.empty() && (t.front() == '#' || t.front() == ' ')) t.erase(0, 1);
  if (t.rfind("Table:", 0) == 0) t = t.substr(6);
  if (const size_t at = t.find("(table)"); at != std::string::npos) t.erase(at, 7);
  return text::trim(t);
}

bool speaks_of_spells(std::string_view s) {
  const std::string t = text::fold(s);
  return t.find("spell") != std::string::npos || t.find("magic") != std::string::npos;
}

// The spell tables of one feature's text.
void tables_of(const std::string& feature, const std::string& desc, std::vector<GrantedSpells>& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= desc.size()) {
    const size_t nl = desc.find('\n', start);
    lines.push_back(desc.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  std::string label;
  std::vector<GrantedSpells> found;
  std::vector<std::string> groups_seen;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!table_line(lines[i])) {
      if (const std::string l = label_of(lines[i]); !l.empty()) label = l;
      continue;
    }
    // A table: its header is the line before its separator (none when the separator comes first).
    std::vector<std::string> header;
    size_t row = i;
    if (separator_line(lines[i])) {
      row = i + 1;
    } else if (i + 1 < lines.size() && separator_line(lines[i + 1])) {
      header = cells_of(lines[i]);
      row = i + 2;
    }
    const bool spell_level = !header.empty() && text::fold(header[0]).find("spell level") != std::string::npos;
    const bool about_spells = speaks_of_spells(feature) || std::any_of(header.begin(), header.end(), speaks_of_spells);
    for (; row < lines.size() && table_line(lines[row]); ++row) {
      if (separator_line(lines[row])) continue;
      const std::vector<std::string> cells = cells_of(lines[row]);
      const auto level = cells.empty() ? std::nullopt : level_cell(cells[0]);
      if (!about_spells || !level) continue;
      for (size_t c = 1; c < cells.size(); ++c) {
        GrantedSpells g{feature, "", *level, spell_level, {}};
        // Several spell columns: each is a group ("Air Spells"); one table among several: its label.
        if (header.size() > 2 && c < header.size()) g.group = header[c];
        if (g.group.empty()) g.group = label == feature ? "" : label;
        for (const auto& part : text::split_commas(cells[c])) {
          const std::string name = text::trim(without_emphasis(part));
          // A spell's name starts with a letter: "30 feet" in a distance-by-slot-level table is no spell.
          if (!name.empty() && std::isalpha(static_cast<unsigned char>(name[0]))) g.names.push_back(name);
        }
        if (!g.names.empty()) found.push_back(std::move(g));
      }
    }
    i = row == 0 ? i : row - 1;
    label.clear();
  }
  // One table's label is its feature's business, not a group to choose between.
  std::vector<std::string> groups;
  for (const auto& g : found) {
    if (std::find(groups.begin(), groups.end(), g.group) == groups.end()) groups.push_back(g.group);
  }
  for (auto& g : found) {
    if (groups.size() == 1) g.group.clear();
    out.push_back(std::move(g));
  }
}

}  // namespace

int CasterLevel::max_spell_level() const {
  int best = pact_slots > 0 ? pact_slot_level : 0;
  for (int l = 9; l >= 1; --l) {
    if (slots[static_cast<size_t>(l)] > 0) {
      best = std::max(best, l);
      break;
    }
  }
  for (int l : arcanum_levels) best = std::max(best, l);
  return best;
}

bool CasterLevel::casts() const {
  return max_spell_level() > 0 || cantrips.value_or(0) > 0 || spells_known.value_or(0) > 0 || prepared.value_or(0) > 0;
}

std::optional<CasterLevel> caster_level(const json& class_table, int level) {
  const json& header = field(class_table, "header");
  const json& rows = field(class_table, "rows");
  if (!header.is_array() || !rows.is_array()) return std::nullopt;
  const std::string wanted = std::to_string(level);
  CasterLevel out;
  bool any_column = false;
  bool cantrips_seen = false;
  int pact_table_max = 0;
  int arcana = 0;
  const json* found = nullptr;
  for (const auto& row : rows) {
    const int row_level = leading_number(string_at(row, 0));
    if (row_level == 0) continue;
    for (size_t c = 0; c < header.size(); ++c) {
      if (string_at(header, c) == "Slot Level")
        pact_table_max = std::max(pact_table_max, leading_number(string_at(row, c)));
      if (string_at(header, c) == "Features" && row_level <= level &&
          text::fold(string_at(row, c)).find("mystic arcanum") != std::string::npos) {
        ++arcana;
      }
    }
    if (string_at(row, 0) == wanted) found = &row;
  }
  if (found == nullptr) return std::nullopt;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string h = string_at(header, c);
    const std::string cell = string_at(*found, c);
    const std::string f = text::fold(h);
    if (const int slot = slot_column_level(h); slot > 0) {
      out.slots[static_cast<size_t>(slot)] = leading_number(cell);
      any_column = true;
    } else if ((f == "cantrips known" || f == "cantrips") && !cantrips_seen) {
      cantrips_seen = true;
      out.cantrips = number_in(cell);
      any_column = true;
    } else if (f == "spells known") {
      out.spells_known = number_in(cell);
      any_column = true;
    } else if (f == "prepared spells") {
      out.prepared = number_in(cell);
      any_column = true;
    } else if (f == "spell slots") {
      out.pact_slots = leading_number(cell);
      any_column = true;
    } else if (f == "slot level") {
      out.pact_slot_level = leading_number(cell);
      any_column = true;
    }
  }
  if (!any_column) return std::nullopt;
  // Mystic Arcanum: one spell of each level above the pact slots' highest, one per time the table names it.
  for (int i = 0; i < arcana && pact_table_max + 1 + i <= 9; ++i) out.arcanum_levels.push_back(pact_table_max + 1 + i);
  return out;
}

int first_casting_level(const json& class_table, int from) {
  for (int level = std::max(1, from); level <= 20; ++level) {
    if (auto row = caster_level(class_table, level); row && row->casts()) return level;
  }
  return 0;
}

int PreparedRule::count(int modifier, int level) const {
  return std::max(1, modifier + (half_level ? level / 2 : level));
}

std::optional<PreparedRule> prepared_rule(std::string_view text_in) {
  static const RE2 kRule("(?i)(equal to your " + ability_group() + R"( modifier \+ (half )?your [a-z]+ level))");
  std::string ability, half;
  re2::StringPiece input(text_in.data(), text_in.size());
  re2::StringPiece whole;
  if (!RE2::PartialMatch(input, kRule, &whole, &ability, &half)) return std::nullopt;
  PreparedRule r;
  r.ability = text::capitalised(ability);
  r.half_level = !half.empty();
  // The sentence around the match.
  const size_t at = static_cast<size_t>(whole.data() - text_in.data());
  size_t begin = text_in.rfind('.', at);
  const size_t line = text_in.rfind('\n', at);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  if (line != std::string_view::npos && line + 1 > begin) begin = line + 1;
  size_t end = text_in.find('.', at + whole.size());
  if (const size_t paren = text_in.find(')', at + whole.size());
      paren != std::string_view::npos && end != std::string_view::npos && paren + 1 == end) {
    end = paren + 1;
  }
  r.sentence =
      text::trim(text_in.substr(begin, end == std::string_view::npos ? std::string_view::npos : end + 1 - begin));
  return r;
}

std::string spellcasting_ability(std::string_view text_in) {
  static const RE2 kAbility("(?i)" + ability_group() + " is (?:your|the) spellcasting ability");
  std::string ability;
  if (!RE2::PartialMatch(re2::StringPiece(text_in.data(), text_in.size()), kAbility, &ability)) return "";
  return text::capitalised(ability);
}

std::vector<GrantedSpells> granted_spells(const json& features) {
  std::vector<GrantedSpells> out;
  if (!features.is_array()) return out;
  for (const auto& f : features) {
    const json& name = field(f, "name");
    const json& desc = field(f, "desc");
    if (!name.is_string() || !desc.is_string()) continue;
    tables_of(name.get<std::string>(), desc.get<std::string>(), out);
  }
  return out;
}

std::string spell_name_of(std::string_view written) {
  std::string t = without_emphasis(written);
  if (const size_t paren = t.find('('); paren != std::string::npos && paren > 0) t.erase(paren);
  t = text::trim(t);
  while (!t.empty() && (t.back() == ',' || t.back() == '.')) t.pop_back();
  return text::trim(t);
}

}  // namespace lorekeeper::model
