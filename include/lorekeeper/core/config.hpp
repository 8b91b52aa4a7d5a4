// Run-time settings. Precedence, highest first: command-line flags, LOREKEEPER_* environment variables,
// the .env file (in the working directory, or the file named by LOREKEEPER_ENV_FILE), built-in defaults.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper {

struct Config {
  std::string db_path;             // LOREKEEPER_DB_PATH; default $XDG_DATA_HOME/lorekeeper/lorekeeper.db
  std::string log_level = "info";  // LOREKEEPER_LOG_LEVEL
  std::string open5e_base_url = "https://api.open5e.com";  // LOREKEEPER_OPEN5E_BASE_URL
  int cache_ttl_days = 7;                                  // LOREKEEPER_CACHE_TTL_DAYS
  int error_cache_ttl_seconds = 300;                       // LOREKEEPER_ERROR_CACHE_TTL_SECONDS
  bool legacy_tools = false;                               // LOREKEEPER_LEGACY_TOOLS
  // LOREKEEPER_PREFERRED_EDITION: the rules listed first among the editions of one name (5e-2014 or 5e-2024).
  std::string preferred_edition = "5e-2014";
  int http_timeout_seconds = 60;   // LOREKEEPER_HTTP_TIMEOUT_SECONDS: one request, whole transfer
  std::string auto_sync = "auto";  // LOREKEEPER_AUTO_SYNC: serve refreshes stale data (auto, on, off)
  int http_retries = 4;            // LOREKEEPER_HTTP_RETRIES: retries after a failed attempt
  // LOREKEEPER_EMBED: meaning-based search (auto: when the model is installed; off: lexical only, no notice;
  // stored: serve embeds queries only and answers from the vectors another process writes into the store).
  std::string embed = "auto";
  int embed_threads = 1;   // LOREKEEPER_EMBED_THREADS: encoder threads for embedding entities (1-64)
  int embed_passages = 1;  // LOREKEEPER_EMBED_PASSAGES: passages embedded per entity (1-16)
  // serve --http: the address and port to bind (a non-loopback address requires a token), the bearer token,
  // extra accepted Host names and browser origins (comma-separated), worker threads (1-256).
  std::string http_host = "127.0.0.1";       // LOREKEEPER_HTTP_HOST
  int http_port = 8080;                      // LOREKEEPER_HTTP_PORT (0: any free port)
  std::string http_token;                    // LOREKEEPER_HTTP_TOKEN
  std::string http_allowed_hosts;            // LOREKEEPER_HTTP_ALLOWED_HOSTS, e.g. "lore.example.com,10.0.0.5:8080"
  std::string http_cors_origins;             // LOREKEEPER_HTTP_CORS_ORIGINS, e.g. "http://localhost:6274"
  int http_threads = 32;                     // LOREKEEPER_HTTP_THREADS
  int http_max_connections = 0;              // LOREKEEPER_HTTP_MAX_CONNECTIONS (0: from the descriptor limit)
  int http_max_connections_per_client = 64;  // LOREKEEPER_HTTP_MAX_CONNECTIONS_PER_CLIENT
  // Where each setting came from ("default", "env", ".env", "flag"), for `status`.
  std::map<std::string, std::string> origin;
};

// Reads one environment variable; injectable so tests need not touch the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();

// Parses the text of a .env file: KEY=VALUE lines, '#' comments, optional `export `, single or double quotes.
// Malformed lines are reported in the Status with their line number.
Result<std::map<std::string, std::string>> parse_dotenv(const std::string& text);

// Builds the configuration from defaults, the .env file and the environment (flags are applied by the CLI).
// A .env file that cannot be parsed is an error; a missing one is not.
Result<Config> load_config(const EnvLookup& env, const std::string& dotenv_path);

// $XDG_DATA_HOME/lorekeeper (or ~/.local/share/lorekeeper).
std::string default_data_dir(const EnvLookup& env);

}  // namespace lorekeeper
