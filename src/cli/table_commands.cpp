#include <cstdio>
#include <optional>
#include <utility>

#include "command.hpp"
#include "lorekeeper/serve/engines.hpp"
#include "table_calls.hpp"

namespace lorekeeper::cli {

namespace {

using serve::make_engine;

// One tool call a command line made (roll, encounter, spells, odds), printed as `lorekeeper tool` prints it.
int cmd_call(const Config& cfg, const ToolCall& call, bool as_json) {
  tools::Engine engine = make_engine(cfg);
  return print_tool_result(engine.call(call.tool, call.args), as_json);
}

class RollCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* roll =
        app.add_subcommand("roll", "Roll dice with their exact odds, as roll_dice answers (roll 8d6 --target 30)");
    roll->add_option("notation", request_.notation, "Dice: 8d6, 1d20+5, 4d6kh3, 2d20kh1+7")->required();
    target_opt_ = roll->add_option("-t,--target", target_, "Also the exact chance of a total at least this");
    times_opt_ = roll->add_option("-n,--times", times_, "How many rolls (default 1)");
    auto* advantage_opt = roll->add_flag("--advantage", advantage_, "Roll each plain 1d20 twice and keep the higher");
    roll->add_flag("--disadvantage", disadvantage_, "Roll each plain 1d20 twice and keep the lower")
        ->excludes(advantage_opt);
    seed_opt_ = roll->add_option("--seed", seed_, "Seed: the same seed gives the same dice");
    roll->add_flag("--json", as_json_, "Print the structured result as JSON");
    return roll;
  }
  int run(Config& cfg) override {
    if (target_opt_->count() > 0) request_.target = target_;
    if (times_opt_->count() > 0) request_.times = times_;
    if (seed_opt_->count() > 0) request_.seed = seed_;
    request_.mode = advantage_ ? "advantage" : disadvantage_ ? "disadvantage" : "";
    return cmd_call(cfg, roll_call(request_), as_json_);
  }

 private:
  RollRequest request_;
  int target_ = 0, times_ = 0;
  long long seed_ = 0;
  bool as_json_ = false, advantage_ = false, disadvantage_ = false;
  CLI::Option* target_opt_ = nullptr;
  CLI::Option* times_opt_ = nullptr;
  CLI::Option* seed_opt_ = nullptr;
};

class EncounterCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* encounter = app.add_subcommand(
        "encounter",
        "How hard a fight is for a party (creatures given), or fights to build for it (none given), as "
        "evaluate_encounter and build_encounter answer");
    encounter->add_option("creatures", request_.creatures,
                          "Creatures: goblin, \"4 goblin\", \"goblin x4\", srd_bugbear, \"cr 1/2\"");
    encounter->add_option("-p,--party", request_.party, "The party's levels: 3,3,3,4, or 4x5 for four level-5")
        ->required();
    encounter->add_option("-r,--rules", request_.rules, "2014 or 2024 (default: the preferred edition)");
    encounter->add_option("--difficulty", request_.difficulty,
                          "To build: easy, medium, hard, deadly (2014); low, moderate, high (2024)");
    encounter->add_option("--theme", request_.theme, "To build: what the fight is about, in words");
    encounter->add_option("--environment", request_.environment, "To build: swamp, mountain, underworld, ...");
    seed_opt_ = encounter->add_option("--seed", seed_, "To build: the same seed, the same groups");
    encounter->add_option("-d,--document", request_.documents, "Only this source document (repeatable)")
        ->allow_extra_args(false);
    encounter->add_flag("--json", as_json_, "Print the structured result as JSON");
    return encounter;
  }
  int run(Config& cfg) override {
    if (seed_opt_->count() > 0) request_.seed = seed_;
    auto call = encounter_call(request_);
    if (!call) {
      std::fprintf(stderr, "lorekeeper encounter: %s\n", call.status().message().c_str());
      return 2;
    }
    return cmd_call(cfg, *call, as_json_);
  }

 private:
  EncounterRequest request_;
  long long seed_ = 0;
  bool as_json_ = false;
  CLI::Option* seed_opt_ = nullptr;
};

class SpellsCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* spells = app.add_subcommand(
        "spells",
        "What a class casts at a level: slots, cantrips, prepared spells and its list, as class_spells answers");
    spells->add_option("class", request_.class_name, "Class (or subclass) by name or key: cleric, \"Life Domain\"")
        ->required();
    spells->add_option("level", request_.level, "Character level in the class, 1-20")->required();
    spells->add_option("-s,--subclass", request_.subclass, "Also this subclass's granted spells: life, devotion");
    spells->add_option("-r,--rules", request_.rules, "2014 or 2024 (default: the preferred edition)");
    modifier_opt_ = spells->add_option("-m,--modifier", modifier_,
                                       "Spellcasting ability modifier, to count a 2014 class's prepared spells");
    spells->add_option("-d,--document", request_.documents, "Spells of this source document (repeatable)")
        ->allow_extra_args(false);
    spells->add_flag("--json", as_json_, "Print the structured result as JSON");
    return spells;
  }
  int run(Config& cfg) override {
    if (modifier_opt_->count() > 0) request_.modifier = modifier_;
    return cmd_call(cfg, spells_call(request_), as_json_);
  }

 private:
  SpellsRequest request_;
  int modifier_ = 0;
  bool as_json_ = false;
  CLI::Option* modifier_opt_ = nullptr;
};

class OddsCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* odds = app.add_subcommand(
        "odds", "Exact odds of attacks and saves and their damage, as attack_odds answers (odds --bonus 5 --ac 16)");
    given_.push_back({odds->add_option("-b,--bonus", bonus_, "Attack bonus (+5 is 5)"), {&bonus_, &request_.bonus}});
    given_.push_back({odds->add_option("--ac", ac_, "The target's armor class"), {&ac_, &request_.ac}});
    given_.push_back(
        {odds->add_option("-n,--attacks", attacks_, "How many such attacks"), {&attacks_, &request_.attacks}});
    odds->add_option("--damage", request_.damage, "Damage dice of a hit: 1d8+3");
    odds->add_option("-c,--creature", request_.creature, "A creature's attacks, by name or key: ogre");
    odds->add_option("--action", request_.action, "With --creature: only this action");
    given_.push_back(
        {odds->add_option("--crit", crit_, "Lowest natural roll that crits (default 20)"), {&crit_, &request_.crit}});
    given_.push_back({odds->add_option("--save-dc", save_dc_, "A saving throw's DC (with --save-bonus)"),
                      {&save_dc_, &request_.save_dc}});
    given_.push_back(
        {odds->add_option("--save-bonus", save_bonus_, "The target's save bonus (a creature's save effects too)"),
         {&save_bonus_, &request_.save_bonus}});
    auto* advantage_opt = odds->add_flag("--advantage", advantage_, "Roll with advantage");
    odds->add_flag("--disadvantage", disadvantage_, "Roll with disadvantage")->excludes(advantage_opt);
    odds->add_flag("--table", request_.table, "Also the chance to hit each AC near the target");
    odds->add_option("-d,--document", request_.documents, "Look for the creature in this document (repeatable)")
        ->allow_extra_args(false);
    odds->add_flag("--json", as_json_, "Print the structured result as JSON");
    return odds;
  }
  int run(Config& cfg) override {
    // The numbers given are passed; the others stay unset (the tool's defaults).
    for (const auto& [option, value] : given_) {
      if (option->count() > 0) *value.second = *value.first;
    }
    request_.mode = advantage_ ? "advantage" : disadvantage_ ? "disadvantage" : "";
    return cmd_call(cfg, odds_call(request_), as_json_);
  }

 private:
  OddsRequest request_;
  int bonus_ = 0, ac_ = 0, attacks_ = 0, crit_ = 0, save_dc_ = 0, save_bonus_ = 0;
  bool as_json_ = false, advantage_ = false, disadvantage_ = false;
  std::vector<std::pair<CLI::Option*, std::pair<int*, std::optional<int>*>>> given_;
};

}  // namespace

std::unique_ptr<Command> roll_command() { return std::make_unique<RollCommand>(); }
std::unique_ptr<Command> encounter_command() { return std::make_unique<EncounterCommand>(); }
std::unique_ptr<Command> spells_command() { return std::make_unique<SpellsCommand>(); }
std::unique_ptr<Command> odds_command() { return std::make_unique<OddsCommand>(); }

}  // namespace lorekeeper::cli
