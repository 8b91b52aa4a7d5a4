#include "lorekeeper/model/derived.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {
namespace {

using re2::RE2;
using re2::StringPiece;

// The rules read lower-cased text with the stat blocks' markup removed, so every pattern below is lower-case.
#define LK_CONDITIONS                                                                                        \
  "blinded|charmed|deafened|frightened|grappled|incapacitated|invisible|paralyzed|petrified|poisoned|prone|" \
  "restrained|stunned|unconscious|exhaustion"
#define LK_ABILITIES "strength|dexterity|constitution|intelligence|wisdom|charisma|str|dex|con|int|wis|cha"
#define LK_DAMAGE "acid|bludgeoning|cold|fire|force|lightning|necrotic|piercing|poison|psychic|radiant|slashing|thunder"
#define LK_DAMAGE_JOIN "(?:,|,? or|,? and)\\s+"

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(8 << 20);
  return o;
}

struct Patterns {
  // A spell list's label ("at will:", "3/day each:", "1st level (4 slots):", "cantrips (at will):").
  RE2 list_label{"(?:at will|cantrips|\\d+ ?/ ?day(?: each)?|\\d+(?:st|nd|rd|th)[- ]level|constant)[^:\\n]{0,30}:",
                 options()};
  // "can innately cast sleep,", "casts the comprehend languages spell", "casts fireball (level 5 version) twice".
  RE2 casts_inline{
      "\\bcan (?:innately )?cast (?:the )?([a-z][a-z' /-]{2,40}?)(?: spell)?(?: \\(|,|\\.|;| twice| at will| "
      "requiring| using| without| in response| on | at | with |$)|\\bcasts (?:the )?([a-z][a-z' /-]{2,40}?)(?: "
      "spell)?(?: \\(|,|\\.|;| twice| at will| requiring| using| without| in response| on | at | with |$)",
      options()};
  RE2 not_a_spell{
      "^(?:a|an|any|one|two|the following|following|spells?|its?|them|that|this|these|those|cantrips|no|only|up|"
      "each|all|either|another|other|innate|one of|some|such|his|her|their)\\b",
      options()};
  RE2 inflict{
      "\\b(?:is|are|be|becomes?|becoming|been|fall|falls|knocked|knocks?|knocking|left|remains?|has the|have the|"
      "gains? the|suffers? the|or|and)\\s+(?:[a-z]+\\s+){0,2}?(" LK_CONDITIONS ")\\b|\\b(" LK_CONDITIONS
      ") (?:condition|for|until)\\b|levels? of (exhaustion)|\\b(turns? to stone|"
      "turned to stone)|\\b(grappling) (?:the|a|an|one|that|its) (?:target|creature|foe|victim|prey)\\b",
      options()};
  // Words that make a mention in the same clause not an infliction ("isn't knocked prone", "the condition ends").
  RE2 negation{
      "can't|cannot|can not|isn't|is not|aren't|no longer|unless|already|\\bends?\\b|\\bending\\b|doesn't|"
      "does not|\\bremov|\\bcure|suppress|would|\\b(?:that|who|which) (?:is|are)\\b",
      options()};
  // Words that make every later mention in the sentence a defence ("immune to poison damage, to exhaustion, and to
  // the poisoned condition", "advantage on saving throws against being blinded, charmed, ...", "escape from ... a
  // creature imposing the Grappled condition", "can neither ... nor cause the target to have the Paralyzed ...",
  // "has advantage on saving throws ... to resist being charmed or paralyzed").
  RE2 defence{"immune|immunity|resistan|\\bresist\\b|against being|against the|against effects|\\bescape|\\bneither\\b",
              options()};
  RE2 as_adjective{"^ (?:creatures?|targets?|ones?|allies|ally)\\b|^ conditions? (?:end|immun)", options()};
  RE2 someone_else{"target|creature|ally|allies|\\beach\\b|\\byou\\b", options()};
  RE2 save{"\\bdc ?\\d+ (" LK_ABILITIES ")\\b|\\b(" LK_ABILITIES
           ") saving throw: dc|\\b(?:make|makes|making|succeed on|succeeds on|fail|fails|failed|attempt|attempts) "
           "(?:a|an|another|the) (?:successful )?(?:dc ?\\d+ )?(" LK_ABILITIES
           ") (?:saving throw|save)|\\ba successful "
           "(" LK_ABILITIES ") saving throw",
           options()};
  RE2 damage{
      "(?:\\d+d\\d+(?: ?[+-] "
      "?\\d+)?\\)?|\\d+\\)?|extra|additional|\\btakes?|\\btaking|\\bdeals?|\\bdealing)\\s+(?:ongoing\\s+)?(?:"
      "(" LK_DAMAGE ")" LK_DAMAGE_JOIN ")?(?:(" LK_DAMAGE ")" LK_DAMAGE_JOIN ")?(" LK_DAMAGE ") damage",
      options()};
  // Damage a terse stat block writes without the word: "17 (4d6+3) lightning." (read beside `damage`, whose longer
  // lists it would cut short if it were one of its alternatives).
  RE2 terse_damage{"\\(\\d+d\\d+(?: ?[+-] ?\\d+)?\\)\\s+(?:(" LK_DAMAGE ")" LK_DAMAGE_JOIN ")?(" LK_DAMAGE ")\\b",
                   options()};
  // An attack it makes, not "ranged attacks against the dragon are made with disadvantage".
  RE2 melee{"\\bmelee (?:or ranged )?(?:weapon |spell )?attack(?: roll)?s?( against)?", options()};
  RE2 ranged{"\\b(?:melee or )?ranged (?:weapon |spell )?attack(?: roll)?s?( against)?", options()};
  RE2 reach{"\\breach (\\d+) ?(?:ft|feet)", options()};
  RE2 heals{
      "\\bregains? (?:a number of |all (?:of )?(?:its |their |your )?|half (?:of )?(?:its |their |your )?|"
      "[a-z]+ )?(?:hit points?|\\d+d\\d+|\\d+ hit)|\\brestores? (?:[a-z0-9]+ ){0,3}hit points?|to life with "
      "\\d+ hit points?",
      options()};
  RE2 heals_not{"can't regain|cannot regain|doesn't regain|don't regain|can't heal|can't be healed", options()};
  // Summoned or conjured creatures, not "you summon the power of" or "you conjure a boulder".
  RE2 summons{
      "\\b(?:creates?|raises?) (?:an? |one |two |[a-z]+ )?(?:undead|servants?|skeletons?|zombies?)\\b|"
      "\\b(?:summons?|summoning|conjures?|calls? forth|calls? up)\\b[^.;\\n]{0,60}?\\b(?:"
      "creatures?|spirits?|elementals?|fey|fiends?|celestials?|beasts?|undead|familiars?|steeds?|mounts?|"
      "swarms?|servants?|allies|ally|minions?|monsters?|demons?|devils?|angels?|dragons?|animals?|soldiers?|"
      "warriors?|hounds?|wolves|guardians?|skeletons?|zombies?|ghosts?|shadows?|horde)\\b|gain the service of|"
      "\\b(?:creature|spirit|elemental|familiar|beast|fey|fiend|celestial|undead|steed)s? (?:of your choice )?"
      "appears? in (?:an )?unoccupied space",
      options()};
  RE2 teleports{"\\bteleport(?:s|ed|ing|ation)?\\b", options()};
  // A sentence about teleportation failing or being blocked ("nothing can teleport into or out of the warded area").
  RE2 teleports_not{
      "can't|cannot|fail|nothing|nor can|warded|blocked|prevent|tries to|trying to|attempts? to|"
      "against|by means of",
      options()};
};

const Patterns& patterns() {
  static const Patterns* p = new Patterns();
  return *p;
}

// Calls f(groups) for each non-overlapping match of `re` in `text`; groups[0] is the whole match.
template <typename F>
void for_each_match(const RE2& re, std::string_view text, F&& f) {
  const int n = re.NumberOfCapturingGroups() + 1;
  std::vector<StringPiece> g(static_cast<size_t>(n));
  const StringPiece in(text.data(), text.size());
  size_t pos = 0;
  while (pos <= text.size() && re.Match(in, pos, text.size(), RE2::UNANCHORED, g.data(), n)) {
    f(g);
    const size_t end = static_cast<size_t>(g[0].data() - text.data()) + g[0].size();
    pos = end > pos ? end : pos + 1;
  }
}

bool found(const RE2& re, std::string_view text) {
  return RE2::PartialMatch(StringPiece(text.data(), text.size()), re);
}

std::string_view view(const StringPiece& p) { return {p.data(), p.size()}; }

// Lower case; curly apostrophes straightened; <br> as a line break; emphasis marks (* and _) removed.
std::string prepare(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '*' || c == '_') continue;
    if (s.compare(i, 3, "\xE2\x80\x99") == 0) {
      out.push_back('\'');
      i += 2;
      continue;
    }
    if (c == '<' && (s.compare(i, 4, "<br>") == 0 || s.compare(i, 5, "<br/>") == 0)) {
      out.push_back('\n');
      i += s.compare(i, 4, "<br>") == 0 ? 3 : 4;
      continue;
    }
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

// The texts a rule reads: each entry of a creature's lists (with its name), a spell's desc and higher_level.
struct Passage {
  std::string name;  // the entry's name, prepared ("innate spellcasting (1/day)"); empty for a spell
  std::string text;  // prepared
  const json* entry = nullptr;
};

std::vector<Passage> passages_of(const Entity& e) {
  std::vector<Passage> out;
  auto str = [](const json& j, const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (e.kind == Kind::kSpell) {
    for (const char* k : {"desc", "higher_level"}) {
      if (std::string t = str(e.data, k); !t.empty()) out.push_back({"", prepare(t), nullptr});
    }
    return out;
  }
  for (const char* list :
       {"traits", "actions", "bonus_actions", "reactions", "legendary_actions", "mythic_actions", "lair_actions"}) {
    auto it = e.data.find(list);
    if (it == e.data.end() || !it->is_array()) continue;
    for (const json& entry : *it) {
      if (!entry.is_object()) continue;
      out.push_back({prepare(str(entry, "name")), prepare(str(entry, "desc")), &entry});
    }
  }
  return out;
}

std::vector<std::string_view> sentences(std::string_view t) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= t.size(); ++i) {
    const bool end = i == t.size() || t[i] == '\n' ||
                     ((t[i] == '.' || t[i] == '!' || t[i] == '?') && i + 1 < t.size() && t[i + 1] == ' ');
    if (!end) continue;
    if (i > start) out.push_back(t.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

void add(std::vector<std::string>& v, std::string s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

// A creature's spell names, in the order written, each once. Unlike the other facets, whose values come from a
// short vocabulary, a homebrew text may name any number of spells: membership is a hash lookup so that collecting
// them stays linear.
struct SpellNames {
  std::vector<std::string>& names;
  std::unordered_set<std::string> seen;
  void add(std::string s) {
    if (!s.empty() && seen.insert(s).second) names.push_back(std::move(s));
  }
};

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::string full_ability(std::string_view a) {
  for (const std::string& name : ability_names()) {
    if (name.compare(0, a.size(), a) == 0) return name;
  }
  return std::string(a);
}

// A spell list's item: "conjure elemental (earth only)" -> "conjure elemental"; "and fly." -> "fly"; "cure wounds
// 21" (a damage note whose parentheses were cut) -> "cure wounds". Empty when it does not look like a name.
std::string spell_name(std::string_view item) {
  std::string s;
  int depth = 0;
  for (char c : item) {
    if (c == '(' || c == '[') ++depth;
    if (depth == 0) s.push_back(c);
    if ((c == ')' || c == ']') && depth > 0) --depth;
  }
  s = text::trim(s);
  while (!s.empty() && (s.back() == '.' || s.back() == ' ' || (s.back() >= '0' && s.back() <= '9'))) s.pop_back();
  if (s.rfind("and ", 0) == 0) s.erase(0, 4);
  if (s.rfind("or ", 0) == 0) s.erase(0, 3);
  s = text::trim(s);
  if (s.size() < 3 || s.size() > 40) return {};
  int words = 1;
  for (char c : s) {
    if (c == ' ') ++words;
    const bool ok = (c >= 'a' && c <= 'z') || c == ' ' || c == '\'' || c == '-' || c == '/';
    if (!ok) return {};
  }
  if (words > 5) return {};
  return text::fold(s);
}

void spells_from_lists(std::string_view t, SpellNames& out) {
  const Patterns& p = patterns();
  size_t line_start = 0;
  while (line_start <= t.size()) {
    size_t line_end = t.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = t.size();
    const std::string_view line = t.substr(line_start, line_end - line_start);
    std::vector<std::pair<size_t, size_t>> labels;  // [begin, end) of each label in the line
    for_each_match(p.list_label, line, [&](const std::vector<StringPiece>& g) {
      const size_t b = static_cast<size_t>(g[0].data() - line.data());
      labels.emplace_back(b, b + g[0].size());
    });
    for (size_t i = 0; i < labels.size(); ++i) {
      const size_t from = labels[i].second;
      const size_t to = i + 1 < labels.size() ? labels[i + 1].first : line.size();
      std::string_view list = line.substr(from, to - from);
      size_t item_start = 0;
      int depth = 0;
      for (size_t j = 0; j <= list.size(); ++j) {
        const char c = j < list.size() ? list[j] : ',';
        if (c == '(') ++depth;
        if (c == ')' && depth > 0) --depth;
        if ((c == ',' || c == ';') && depth == 0) {
          out.add(spell_name(list.substr(item_start, j - item_start)));
          item_start = j + 1;
        }
      }
    }
    line_start = line_end + 1;
  }
}

void spells_inline(std::string_view t, SpellNames& out) {
  const Patterns& p = patterns();
  for_each_match(p.casts_inline, t, [&](const std::vector<StringPiece>& g) {
    std::string_view cand = !g[1].empty() ? view(g[1]) : view(g[2]);
    // "casts counterspell or shield in response": either spell; but a spell's own name may hold "or".
    for (std::string_view whole : {"create or destroy water", "locate animals or plants"}) {
      if (cand.substr(0, whole.size()) == whole) {
        out.add(spell_name(whole));
        cand.remove_prefix(whole.size());
        if (cand.substr(0, 4) == " or ") cand.remove_prefix(4);
      }
    }
    while (!cand.empty()) {
      const size_t either = cand.find(" or ");
      std::string_view one = cand.substr(0, either);
      if (one.substr(0, 4) == "the ") one.remove_prefix(4);
      if (!one.empty() && !found(p.not_a_spell, one)) out.add(spell_name(one));
      cand = either == std::string_view::npos ? std::string_view() : cand.substr(either + 4);
    }
  });
}

// Whether a clause's subject is the creature itself ("the crinaea gains 1 level of exhaustion", "a kallikantzaros who
// begins its turn ..."): it starts with one of the words of the creature's name, after an article (and, with
// `after_opening`, after a subordinating word: "if the vampire takes radiant damage").
bool about_itself(std::string_view clause, const std::vector<std::string>& self_words, bool after_opening = false) {
  while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
  for (std::string_view opening : {"if ", "when ", "whenever ", "while ", "unless "}) {
    if (after_opening && clause.compare(0, opening.size(), opening) == 0) {
      clause.remove_prefix(opening.size());
      break;
    }
  }
  for (std::string_view article : {"the ", "a ", "an "}) {
    if (clause.compare(0, article.size(), article) == 0) {
      clause.remove_prefix(article.size());
      break;
    }
  }
  const size_t space = clause.find_first_of(" ',");
  const std::string_view first = clause.substr(0, space);
  for (const std::string& w : self_words) {
    // A word of the name, or the end of one that compounds it ("worm must make" for the Iceworm).
    if (first == w || (first.size() >= 4 && w.size() >= first.size() + 3 &&
                       std::string_view(w).substr(w.size() - first.size()) == first)) {
      return true;
    }
  }
  return false;
}

// The words of a creature's name that may stand for it in its text ("adult red dragon" -> adult, red, dragon);
// words of one or two letters and joining words left out.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> out;
  std::string word;
  for (char c : prepare(name) + " ") {
    if ((c >= 'a' && c <= 'z') || c == '-') {
      word.push_back(c);
      continue;
    }
    if (word.size() >= 3 && word != "the" && word != "and" && word != "with" && word != "from" && word != "form") {
      out.push_back(word);
    }
    word.clear();
  }
  return out;
}

// Words that open a clause whose conditions are not imposed ("if the target is prone", "until the pit fiend
// becomes incapacitated"), each with a space on both sides. "when" only at a clause's start: within one it is
// often a relative clause's ("a creature in the area when the cloud is created ... is poisoned").
constexpr std::string_view kOpeners[] = {" if ", " while ", " unless ", " whenever ", " until "};

// Whether a clause (leading spaces aside) opens with one of kOpeners or with "when".
bool opens_conditionally(std::string_view clause) {
  while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
  for (std::string_view w : kOpeners) {
    if (clause.compare(0, w.size() - 1, w.substr(1)) == 0) return true;
  }
  return clause.compare(0, 5, "when ") == 0;
}

// Whether s[i] stands for a comma: a comma, or the first of two spaces (a comma some records lost).
bool comma_at(std::string_view s, size_t i) {
  return s[i] == ',' || (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ');
}

// Conditions a passage imposes, with the clause before each mention checked for negation and conditionals.
void conditions_of(std::string_view t, const std::vector<std::string>& self_words, std::vector<std::string>& out) {
  const Patterns& p = patterns();
  for (std::string_view s : sentences(t)) {
    // The sentence is read once, left to right, whatever its length: the state of the clause each mention is in
    // (where it starts, whether a subordinating word opened it, whether a defence came before) advances with it.
    size_t scanned = 0, cut = 0, prev_cut = 0;
    bool conditional = opens_conditionally(s), prev_conditional = false, defended = false;
    // A new clause from `at`, the one before remembered (a clause without a subject goes on from it).
    auto start_clause = [&](size_t at, bool opened) {
      prev_cut = cut;
      prev_conditional = conditional;
      cut = at;
      conditional = opened;
    };
    int someone_else = -1;  // whether the sentence names another creature; computed on first need
    // Where the sentence's last comma is: a conditional clause with none after it has its main clause inside it.
    size_t last_comma = 0;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (comma_at(s, i)) last_comma = i + 1;
    }
    // Whether a list goes on after a mention: ", or dies", "  or leaves its area".
    auto list_follows = [&](size_t from) {
      const size_t stop = std::min(s.size(), from + 60);
      for (size_t i = from; i + 1 < stop; ++i) {
        if (!comma_at(s, i)) continue;
        std::string_view rest = s.substr(i + 1);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        return rest.compare(0, 3, "or ") == 0 || rest.compare(0, 4, "and ") == 0;
      }
      return false;
    };
    for_each_match(p.inflict, s, [&](const std::vector<StringPiece>& g) {
      std::string cond;
      for (int i = 1; i <= 3 && cond.empty(); ++i) cond = std::string(view(g[static_cast<size_t>(i)]));
      if (cond.empty()) cond = g[4].empty() ? "grappled" : "petrified";
      const size_t begin = static_cast<size_t>(g[0].data() - s.data());
      const size_t end = begin + g[0].size();
      // The clause the mention is in: from the last comma, semicolon, colon, parenthesis, two spaces (a comma some
      // records lost: "a Medium or smaller creature  it is grappled") or subordinating word; and a conditional
      // clause ends where a new subject begins ("if target is Huge or smaller it is grappled").
      for (; scanned < begin; ++scanned) {
        const char c = s[scanned];
        if (c == ';' || c == ':' || c == '(' || comma_at(s, scanned)) start_clause(scanned + 1, false);
        for (std::string_view w : kOpeners) {
          if (s.compare(scanned, w.size(), w) == 0) start_clause(scanned + 1, true);
        }
        if (conditional && scanned > cut + 10 && scanned >= last_comma) {
          for (std::string_view w :
               {" it is ", " it becomes ", " it falls ", " it must ", " they are ", " they become ", " they must ",
                " the target is ", " the target must ", " the creature is ", " the creature must ",
                " that creature is ", " that creature must "}) {
            if (s.compare(scanned, w.size(), w) == 0) start_clause(scanned + 1, false);
          }
        }
      }
      if (!defended) {
        const size_t from = begin > 400 ? begin - 400 : 0;
        defended = found(p.defence, s.substr(from, begin - from));
      }
      if (defended) return;
      // A mention joined by "or"/"and" continues a list that began earlier in the sentence ("a creature that is
      // grappled by the vampire, incapacitated, or restrained"): the sentence before it is its clause.
      const std::string_view matched = view(g[0]);
      const bool continues = matched.compare(0, 3, "or ") == 0 || matched.compare(0, 4, "and ") == 0;
      std::string_view clause = s.substr(continues ? 0 : cut, end - (continues ? 0 : cut));
      while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
      if (!continues) {
        bool opened = conditional;
        // A clause without a subject ("falls unconscious", "becomes incapacitated") in a list goes on from the
        // one before: "when the waverider is reduced to 0 hit points, falls unconscious, or dies". Not after a
        // colon ("Failed save: falls unconscious") nor as a terse main clause ("If the target is Medium, is
        // grappled").
        bool subjectless = false;
        for (std::string_view v : {"becomes ", "becoming ", "falls ", "is ", "remains "}) {
          subjectless = subjectless || clause.compare(0, v.size(), v) == 0;
        }
        subjectless = subjectless && cut > 0 && s[cut - 1] != ':' && list_follows(end);
        std::string_view subject = clause;
        if (subjectless && prev_cut < cut) {
          subject = s.substr(prev_cut, end - prev_cut);
          while (!subject.empty() && subject.front() == ' ') subject.remove_prefix(1);
          opened = prev_conditional;
        }
        if (opened || opens_conditionally(subject) || about_itself(subject, self_words, subjectless)) return;
      }
      // "until the end of its next turn" is how long, not an ending.
      std::string tail(clause.size() > 80 ? clause.substr(clause.size() - 80) : clause);
      for (size_t at = tail.find("the end of"); at != std::string::npos; at = tail.find("the end of", at + 1)) {
        tail.replace(at + 4, 3, "---");
      }
      if (found(p.negation, tail)) return;
      if (found(p.as_adjective, s.substr(end, std::min<size_t>(30, s.size() - end)))) return;
      if (cond == "invisible") {
        if (someone_else < 0) someone_else = found(p.someone_else, s) ? 1 : 0;
        if (someone_else == 0) return;
      }
      add(out, cond);
    });
  }
}

void saves_of(std::string_view t, const std::vector<std::string>& self_words, std::vector<std::string>& out) {
  for (std::string_view s : sentences(t)) {
    if (about_itself(s, self_words)) continue;
    for_each_match(patterns().save, s, [&](const std::vector<StringPiece>& g) {
      for (size_t i = 1; i < g.size(); ++i) {
        if (!g[i].empty()) add(out, full_ability(view(g[i])));
      }
    });
  }
}

// Damage types dealt; not damage the creature itself takes ("the vampire takes 20 radiant damage in sunlight").
void damage_of(std::string_view t, const std::vector<std::string>& self_words, std::vector<std::string>& out) {
  for (std::string_view s : sentences(t)) {
    for (const RE2* re : {&patterns().damage, &patterns().terse_damage}) {
      for_each_match(*re, s, [&](const std::vector<StringPiece>& g) {
        const size_t begin = static_cast<size_t>(g[0].data() - s.data());
        // The clause before the damage, looked for within a bounded distance so the pass stays linear.
        const size_t from = begin > 200 ? begin - 200 : 0;
        const std::string_view before = s.substr(from, begin - from);
        const size_t cut = before.find_last_of(",;:");
        const std::string_view clause =
            cut == std::string_view::npos ? (from == 0 ? before : std::string_view()) : before.substr(cut + 1);
        const std::string_view upto = s.substr(begin - clause.size(), clause.size() + g[0].size());
        // "It takes 5 (1d10) force damage if it ends its turn inside an object": a sentence that opens with "it"
        // speaks of the creature; after "On a failure," the "it" is the target.
        std::string_view subject = clause;
        while (!subject.empty() && subject.front() == ' ') subject.remove_prefix(1);
        // A terse stat block leaves the subject out: "Takes 5 (1d10) force if it ends turn in object."
        const bool opens_with_it = from == 0 && cut == std::string_view::npos &&
                                   (subject.compare(0, 3, "it ") == 0 || subject.compare(0, 5, "it's ") == 0 ||
                                    subject.compare(0, 6, "takes ") == 0);
        if (upto.find("take") != std::string_view::npos && (opens_with_it || about_itself(clause, self_words, true)))
          return;
        for (size_t i = 1; i < g.size(); ++i) {
          if (!g[i].empty()) add(out, std::string(view(g[i])));
        }
      });
    }
  }
}

void derive_creature(Entity& e, const std::vector<Passage>& passages) {
  const Patterns& p = patterns();
  Facets& f = e.facets;
  const std::vector<std::string> self = name_words(e.name);
  SpellNames casts{f.casts, {}};
  bool spellcasting_entry = false;
  for (const Passage& ps : passages) {
    const bool about_spells = ps.name.find("spell") != std::string::npos;
    spellcasting_entry = spellcasting_entry || ps.name.find("spellcasting") != std::string::npos;
    if (about_spells || ps.text.find("spell") != std::string::npos) {
      spells_from_lists(ps.text, casts);
      spells_inline(ps.text, casts);
    }
    conditions_of(ps.text, self, f.conditions);
    saves_of(ps.text, self, f.save_abilities);
    damage_of(ps.text, self, f.damage_types);
    for (const auto& [re, range] : {std::pair<const RE2*, const char*>{&p.melee, "melee"}, {&p.ranged, "ranged"}}) {
      for_each_match(*re, ps.text, [&, range = range](const std::vector<StringPiece>& g) {
        if (g[1].empty()) add(f.attack_ranges, range);
      });
    }
    for_each_match(p.reach, ps.text, [&](const std::vector<StringPiece>& g) {
      if (g[1].size() <= 3 && std::stoi(std::string(view(g[1]))) >= 10) add(f.attack_ranges, "reach");
    });
    if (ps.entry) {
      auto attacks = ps.entry->find("attacks");
      if (attacks != ps.entry->end() && attacks->is_array()) {
        for (const json& a : *attacks) {
          if (!a.is_object()) continue;
          auto number = [&](const char* k) {
            auto it = a.find(k);
            return it != a.end() && it->is_number() ? it->get<double>() : 0.0;
          };
          if (number("reach") > 0) add(f.attack_ranges, "melee");
          if (number("reach") >= 10) add(f.attack_ranges, "reach");
          if (number("range") > 0) add(f.attack_ranges, "ranged");
          // The damage an attack record says it deals, when the entry's text rolls its dice ("17 (4d6+3)
          // lightning." in a terse text): not a net's or a web's, whose damage_type Open5e fills from its
          // immunities with no damage, nor a legendary "makes one Stinger attack" whose record disagrees with the
          // Stinger's own text.
          auto dealt = [&](const json& d) {
            auto t = d.find("damage_type");
            auto dice = d.find("damage");
            if (t == d.end() || !t->is_string() || dice == d.end() || !dice->is_string()) return;
            std::string rolled = text::lower(dice->get<std::string>());
            rolled = rolled.substr(0, rolled.find_first_of("+- "));
            if (rolled.find('d') == std::string::npos || ps.text.find(rolled) == std::string::npos) return;
            const std::string type = text::lower(t->get<std::string>());
            const auto& known = damage_type_names();
            if (std::find(known.begin(), known.end(), type) != known.end()) add(f.damage_types, type);
          };
          dealt(a);
          if (auto extra = a.find("extra_damage"); extra != a.end() && extra->is_array()) {
            for (const json& d : *extra) {
              if (d.is_object()) dealt(d);
            }
          }
        }
      }
    }
  }
  if (auto speed = e.data.find("speed"); speed != e.data.end() && speed->is_object()) {
    for (std::string_view mode : kMovementModes) {
      auto it = speed->find(std::string(mode));
      if (it != speed->end() && it->is_number() && it->get<double>() > 0) add(f.movement, std::string(mode));
    }
  }
  if (auto places = e.data.find("environments"); places != e.data.end()) {
    for (auto& n : environment_values(*places)) add(f.environments, std::move(n));
  }
  if (auto skills = e.data.find("skill_bonuses"); skills != e.data.end() && skills->is_object()) {
    for (auto it = skills->begin(); it != skills->end(); ++it) {
      if (it->is_number()) add(f.skills, text::lower(it.key()));
    }
  }
  auto legendary = e.data.find("legendary_actions");
  if (legendary != e.data.end() && legendary->is_array() && !legendary->empty()) add(f.traits, "legendary");
  if (spellcasting_entry || !f.casts.empty()) add(f.traits, "spellcaster");
}

void derive_spell(Entity& e, const std::vector<Passage>& passages) {
  const Patterns& p = patterns();
  Facets& f = e.facets;
  if (auto it = e.data.find("saving_throw_ability"); it != e.data.end() && it->is_string() && !it->empty()) {
    add(f.save_abilities, full_ability(text::lower(it->get<std::string>())));
  }
  std::string all;
  for (const Passage& ps : passages) {
    conditions_of(ps.text, {}, f.conditions);
    saves_of(ps.text, {}, f.save_abilities);
    damage_of(ps.text, {}, f.damage_types);
    all += ps.text;
    all += '\n';
  }
  if (found(p.heals, all) && !found(p.heals_not, all)) add(f.traits, "heals");
  if (found(p.summons, all)) add(f.traits, "summons");
  for (std::string_view s : sentences(all)) {
    if (found(p.teleports, s) && !found(p.teleports_not, s)) {
      add(f.traits, "teleports");
      break;
    }
  }
}

}  // namespace

const std::vector<std::string>& condition_names() {
  static const std::vector<std::string> v = {"blinded",  "charmed",       "deafened",   "exhaustion", "frightened",
                                             "grappled", "incapacitated", "invisible",  "paralyzed",  "petrified",
                                             "poisoned", "prone",         "restrained", "stunned",    "unconscious"};
  return v;
}

const std::vector<std::string>& damage_type_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    std::string_view all = LK_DAMAGE;
    for (size_t bar; (bar = all.find('|')) != std::string_view::npos; all.remove_prefix(bar + 1))
      out.emplace_back(all.substr(0, bar));
    out.emplace_back(all);
    return out;
  }();
  return v;
}

const std::vector<std::string>& ability_names() {
  static const std::vector<std::string> v = {"strength",     "dexterity", "constitution",
                                             "intelligence", "wisdom",    "charisma"};
  return v;
}

void derive_weapon(Entity& e) {
  Facets& f = e.facets;
  auto melee = e.data.find("is_melee");
  if (melee == e.data.end() || !melee->is_boolean()) return;
  // The record's property names ("Thrown", {"name": "Thrown", "detail": "range 20/60"}), as the store reads them
  // back too.
  const auto has = [&](std::string_view wanted) {
    auto props = e.data.find("properties");
    if (props == e.data.end() || !props->is_array()) return false;
    for (const json& p : *props) {
      const json* name = p.is_object() && p.contains("name") ? &p["name"] : &p;
      if (name->is_string() && text::lower(name->get<std::string>()) == wanted) return true;
    }
    return false;
  };
  add(f.attack_ranges, melee->get<bool>() ? "melee" : "ranged");
  if (has("thrown")) add(f.attack_ranges, "ranged");
  if (melee->get<bool>() && has("reach")) add(f.attack_ranges, "reach");
}

void derive_facets(Entity& e) {
  if (e.kind == Kind::kWeapon) {
    e.facets.attack_ranges.clear();
    derive_weapon(e);
    sort_unique(e.facets.attack_ranges);
    return;
  }
  if (e.kind != Kind::kCreature && e.kind != Kind::kSpell) return;
  const std::vector<Passage> passages = passages_of(e);
  if (e.kind == Kind::kCreature) {
    derive_creature(e, passages);
  } else {
    derive_spell(e, passages);
  }
  Facets& f = e.facets;
  for (auto* v : {&f.conditions, &f.save_abilities, &f.attack_ranges, &f.traits, &f.damage_types, &f.movement,
                  &f.skills, &f.environments}) {
    sort_unique(*v);
  }
}

std::optional<std::string> environment_asked(std::string_view given) {
  // Words of letters and digits ("swamp!" is "swamp"), without joining words at either end ("plane of" is "plane").
  static const std::set<std::string, std::less<>> kJoining = {"a", "an", "and", "in", "of", "on", "or", "the", "to"};
  std::vector<std::string> words;
  std::string word;
  for (char c : text::fold(given) + " ") {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      word.push_back(c);
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  while (!words.empty() && kJoining.count(words.back())) words.pop_back();
  size_t first = 0;
  while (first < words.size() && kJoining.count(words[first])) ++first;
  if (first == words.size()) return std::nullopt;
  std::string asked;
  for (size_t i = first; i < words.size(); ++i) asked += (asked.empty() ? "" : " ") + words[i];
  return asked;
}

std::vector<std::string> environment_values(const json& environments) {
  std::vector<std::string> named;
  if (!environments.is_array()) return named;
  for (const json& place : environments) {
    if (!place.is_string()) continue;
    std::string folded = text::fold(place.get<std::string>());
    if (!folded.empty()) named.push_back(std::move(folded));
  }
  sort_unique(named);
  if (named.size() >= kAnywhereFrom) named.push_back(std::string(kAnywhere));
  return named;
}

bool environment_matches(std::string_view listed, std::string_view asked) {
  if (asked.empty()) return false;
  if (listed == asked) return true;
  const std::string padded = " " + std::string(listed) + " ";
  return padded.find(" " + std::string(asked) + " ") != std::string::npos;
}

}  // namespace lorekeeper::model
