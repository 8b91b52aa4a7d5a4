#include "lorekeeper/open5e/corrections.hpp"

#include <algorithm>
#include <set>

extern "C" const char lorekeeper_corrections_begin[];
extern "C" const char lorekeeper_corrections_end[];

namespace lorekeeper::open5e {
namespace {

using json = nlohmann::json;

// "v2/magicitems/srd_horn-of-valhalla-silver" -> ("v2/magicitems", "srd_horn-of-valhalla-silver").
Status split_record(const json& entry, const std::string& where, std::string& endpoint, std::string& key) {
  if (!entry.contains("record") || !entry["record"].is_string())
    return Status::invalid_argument(where + "`record` must be a string \"<version>/<list>/<key>\"");
  const std::string record = entry["record"].get<std::string>();
  const size_t first = record.find('/');
  const size_t last = record.rfind('/');
  const bool shaped = first != std::string::npos && last != first && record.find('/', first + 1) == last &&
                      (record.rfind("v1/", 0) == 0 || record.rfind("v2/", 0) == 0) && last > first + 1 &&
                      last + 1 < record.size();
  if (!shaped)
    return Status::invalid_argument(where + "`record` \"" + record + "\" is not \"<version>/<list>/<key>\" (v1 or v2)");
  endpoint = record.substr(0, last);
  key = record.substr(last + 1);
  return Status::ok();
}

// A field path: names joined by '.', none empty.
Status path_member(const json& entry, const std::string& where, std::string& out) {
  if (!entry.contains("field") || !entry["field"].is_string())
    return Status::invalid_argument(where + "`field` must be a string");
  out = entry["field"].get<std::string>();
  if (out.empty() || out.front() == '.' || out.back() == '.' || out.find("..") != std::string::npos)
    return Status::invalid_argument(where + "`field` \"" + out + "\" is not a path of names joined by '.'");
  return Status::ok();
}

Status string_member(const json& entry, const char* name, const std::string& where, std::string& out) {
  if (!entry.contains(name) || !entry[name].is_string() || entry[name].get<std::string>().empty())
    return Status::invalid_argument(where + "`" + name + "` must be a non-empty string");
  out = entry[name].get<std::string>();
  return Status::ok();
}

Status only_members(const json& entry, const std::set<std::string>& allowed, const std::string& where) {
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (!allowed.count(it.key())) return Status::invalid_argument(where + "unknown member `" + it.key() + "`");
  }
  return Status::ok();
}

Result<Evidence> parse_evidence(const json& e, const std::string& where) {
  if (!e.is_object()) return Status::invalid_argument(where + "evidence must be an object");
  LOREKEEPER_RETURN_IF_ERROR(only_members(e, {"record", "field", "quotes", "lacks", "equals"}, where));
  Evidence out;
  LOREKEEPER_RETURN_IF_ERROR(split_record(e, where, out.endpoint, out.key));
  LOREKEEPER_RETURN_IF_ERROR(path_member(e, where, out.field));
  const int tests = static_cast<int>(e.contains("quotes")) + static_cast<int>(e.contains("lacks")) +
                    static_cast<int>(e.contains("equals"));
  if (tests != 1) return Status::invalid_argument(where + "evidence needs exactly one of `quotes`, `lacks`, `equals`");
  if (e.contains("equals")) {
    out.test = Evidence::Test::kEquals;
    out.value = e["equals"];
  } else {
    out.test = e.contains("quotes") ? Evidence::Test::kQuotes : Evidence::Test::kLacks;
    out.value = e.contains("quotes") ? e["quotes"] : e["lacks"];
    if (!out.value.is_string() || out.value.get<std::string>().empty())
      return Status::invalid_argument(where + "`quotes` and `lacks` take a non-empty string");
  }
  return out;
}

struct Bundled {
  std::vector<Correction> corrections;
  std::string error;
  Bundled() {
    const std::string_view text(lorekeeper_corrections_begin,
                                static_cast<size_t>(lorekeeper_corrections_end - lorekeeper_corrections_begin));
    auto parsed = parse_corrections(text);
    if (parsed.is_ok()) {
      corrections = std::move(*parsed);
    } else {
      error = parsed.status().message();
    }
  }
};

const Bundled& bundled() {
  static const Bundled b;
  return b;
}

}  // namespace

std::string Evidence::describe() const {
  std::string out = endpoint + " " + key + ": " + field;
  switch (test) {
    case Test::kQuotes: return out + " says \"" + value.get<std::string>() + "\"";
    case Test::kLacks: return out + " does not say \"" + value.get<std::string>() + "\"";
    case Test::kEquals: return out + " is " + value.dump();
  }
  return out;
}

json Correction::mark() const {
  json evidence_text = json::array();
  for (const auto& e : evidence) evidence_text.push_back(e.describe());
  return json{{"record", endpoint + "/" + key}, {"field", field}, {"was", was}, {"value", value}, {"reason", reason},
              {"evidence", evidence_text}};
}

Result<std::vector<Correction>> parse_corrections(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Status::invalid_argument("corrections: not valid JSON");
  if (!doc.is_array()) return Status::invalid_argument("corrections: the file must be a JSON array of entries");
  std::vector<Correction> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& entry = doc[i];
    std::string where = "corrections: entry " + std::to_string(i + 1) + ": ";
    if (!entry.is_object()) return Status::invalid_argument(where + "must be an object");
    LOREKEEPER_RETURN_IF_ERROR(only_members(entry, {"record", "field", "was", "value", "evidence", "reason"}, where));
    Correction c;
    LOREKEEPER_RETURN_IF_ERROR(split_record(entry, where, c.endpoint, c.key));
    where += c.endpoint + "/" + c.key + ": ";
    LOREKEEPER_RETURN_IF_ERROR(path_member(entry, where, c.field));
    LOREKEEPER_RETURN_IF_ERROR(string_member(entry, "reason", where, c.reason));
    if (!entry.contains("was") || !entry.contains("value"))
      return Status::invalid_argument(where + "`was` and `value` are required");
    c.was = entry["was"];
    c.value = entry["value"];
    if (c.was == c.value) return Status::invalid_argument(where + "`value` is the same as `was`");
    const bool same_type = c.was.type() == c.value.type() || (c.was.is_number() && c.value.is_number());
    if (c.value.is_null() || !same_type)
      return Status::invalid_argument(where + "`value` must be of the type of `was` (" + c.was.type_name() + ")");
    if (!entry.contains("evidence") || !entry["evidence"].is_array() || entry["evidence"].empty())
      return Status::invalid_argument(where + "`evidence` must be a non-empty array");
    for (const auto& e : entry["evidence"]) {
      auto ev = parse_evidence(e, where);
      if (!ev.is_ok()) return ev.status();
      c.evidence.push_back(std::move(*ev));
    }
    for (const auto& other : out) {
      if (other.endpoint != c.endpoint || other.key != c.key) continue;
      const auto within = [](const std::string& a, const std::string& b) { return a == b || a.rfind(b + ".", 0) == 0; };
      if (within(c.field, other.field) || within(other.field, c.field))
        return Status::invalid_argument(where + "`" + c.field + "` overlaps another entry's `" + other.field + "`");
    }
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<Correction>& bundled_corrections() { return bundled().corrections; }
const std::string& corrections_error() { return bundled().error; }

namespace {

// The value at `field` of `record`, const or not.
template <typename Json>
Json* find_field(Json& record, std::string_view field) {
  Json* at = &record;
  size_t from = 0;
  while (true) {
    const size_t dot = field.find('.', from);
    const std::string part(field.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from));
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string_view::npos) return at;
    from = dot + 1;
  }
}

}  // namespace

const json* field_at(const json& record, std::string_view field) { return find_field(record, field); }

bool holds(const Evidence& evidence, const json& record) {
  const json* v = field_at(record, evidence.field);
  if (evidence.test == Evidence::Test::kEquals) return v && *v == evidence.value;
  const std::string quote = evidence.value.get<std::string>();
  // A text lacks a quote; a field that is missing or not text proves nothing (a misspelled name would lack all).
  if (!v || !v->is_string()) return false;
  const bool says = v->get<std::string>().find(quote) != std::string::npos;
  return evidence.test == Evidence::Test::kQuotes ? says : !says;
}

Corrector::Corrector(const std::vector<Correction>& corrections) {
  for (const auto& c : corrections) {
    by_record_.emplace(RecordId{c.endpoint, c.key}, &c);
    state_[&c] = State::kPending;
    for (const auto& e : c.evidence) evidence_records_.insert({e.endpoint, e.key});
  }
}

namespace {

// A record's key (v2) or slug (v1), or "" when it has neither.
std::string id_of(const json& record) {
  if (!record.is_object()) return "";
  for (const char* name : {"key", "slug"}) {
    if (record.contains(name) && record[name].is_string()) return record[name].get<std::string>();
  }
  return "";
}

}  // namespace

void Corrector::note(std::string_view endpoint, const json& record) {
  if (evidence_records_.empty()) return;
  RecordId id{std::string(endpoint), id_of(record)};
  if (evidence_records_.count(id)) noted_[id] = record;
}

void Corrector::forget(std::string_view endpoint) {
  std::erase_if(noted_, [&](const auto& n) { return n.first.first == endpoint; });
  std::erase_if(corrected_, [&](const auto& n) { return n.first.first == endpoint; });
  for (auto& [c, state] : state_) {
    if (c->endpoint != endpoint) continue;
    if (state == State::kApplied) state = State::kPending;
    read_.erase(c);
  }
}

json Corrector::apply(std::string_view endpoint, json& record, json& as_sent) {
  json marks = json::array();
  corrected_lists_.insert(std::string(endpoint));
  note(endpoint, record);
  const RecordId id{std::string(endpoint), id_of(record)};
  if (id.second.empty()) return marks;
  const auto [from, to] = by_record_.equal_range(id);
  for (auto it = from; it != to; ++it) {
    const Correction& c = *it->second;
    read_.insert(&c);
    if (state_[&c] == State::kTakenBack) continue;
    json* v = find_field(record, c.field);
    if (!v || *v != c.was) continue;
    if (marks.empty()) as_sent = record;
    *v = c.value;
    marks.push_back(c.mark());
    state_[&c] = State::kApplied;
  }
  if (!marks.empty()) corrected_[id] = as_sent;
  return marks;
}

std::vector<Corrector::RecordId> Corrector::take_back_unproven() {
  std::set<RecordId> out;
  for (auto& [c, state] : state_) {
    if (state != State::kApplied) continue;
    for (const auto& e : c->evidence) {
      const auto it = noted_.find({e.endpoint, e.key});
      if (it != noted_.end() && holds(e, it->second)) continue;
      failed_evidence_[c] = it == noted_.end() ? "its evidence record " + e.endpoint + "/" + e.key + " was not read"
                                               : "its evidence no longer holds: " + e.describe();
      state = State::kTakenBack;
      out.insert({c->endpoint, c->key});
      break;
    }
  }
  return {out.begin(), out.end()};
}

const json* Corrector::as_sent(const RecordId& record) const {
  const auto it = corrected_.find(record);
  return it == corrected_.end() ? nullptr : &it->second;
}

std::vector<std::string> Corrector::unapplied(const std::set<std::string>& endpoints) const {
  std::vector<std::string> out;
  for (const auto& [c, state] : state_) {
    if (state == State::kApplied || !endpoints.count(c->endpoint)) continue;
    std::string why;
    if (state == State::kTakenBack) {
      why = failed_evidence_.at(c);
    } else if (!corrected_lists_.count(c->endpoint)) {
      why = "its list is not one the corrections apply to";
    } else if (read_.count(c)) {
      why = "the record no longer has the value it corrects";
    } else {
      continue;  // the list has no such record (a partial source, or the API removed it): nothing to correct
    }
    out.push_back(c->endpoint + "/" + c->key + " " + c->field + ": " + why);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int Corrector::applied(const std::set<std::string>& endpoints) const {
  return static_cast<int>(std::count_if(state_.begin(), state_.end(), [&](const auto& s) {
    return s.second == State::kApplied && endpoints.count(s.first->endpoint) > 0;
  }));
}

}  // namespace lorekeeper::open5e
