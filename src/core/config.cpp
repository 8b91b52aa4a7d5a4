#include "lorekeeper/core/config.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lorekeeper/core/files.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<std::map<std::string, std::string>> parse_dotenv(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string t = text::trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("export ", 0) == 0) t = text::trim(t.substr(7));
    const size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::invalid_argument(".env line " + std::to_string(line_no) + ": expected KEY=VALUE");
    }
    std::string key = text::trim(t.substr(0, eq));
    std::string value = text::trim(t.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) {
      if (value.back() != value.front()) {
        return Status::invalid_argument(".env line " + std::to_string(line_no) + ": unterminated quote");
      }
      value = value.substr(1, value.size() - 2);
    } else {
      const size_t hash = value.find(" #");
      if (hash != std::string::npos) value = text::trim(value.substr(0, hash));
    }
    out[key] = value;
  }
  return out;
}

std::string default_data_dir(const EnvLookup& env) {
  if (auto xdg = env("XDG_DATA_HOME"); xdg && !xdg->empty()) return *xdg + "/lorekeeper";
  std::string home = env("HOME").value_or(".");
  return home + "/.local/share/lorekeeper";
}

namespace {

bool parse_bool(const std::string& v, bool* out) {
  const std::string l = text::lower(text::trim(v));
  if (l == "1" || l == "true" || l == "yes" || l == "on")
    *out = true;
  else if (l == "0" || l == "false" || l == "no" || l == "off" || l.empty())
    *out = false;
  else
    return false;
  return true;
}

}  // namespace

Result<Config> load_config(const EnvLookup& env, const std::string& dotenv_path) {
  std::map<std::string, std::string> dotenv;
  // A settings file is a few hundred bytes: one larger than 1 MiB, or not a regular file, is not one
  // (LOREKEEPER_ENV_FILE=/dev/zero was read until memory ran out). A missing file is no settings, and so is a
  // directory (a Python virtual environment is often called .env).
  std::error_code ec;
  const bool directory = std::filesystem::is_directory(dotenv_path, ec);
  auto read =
      directory ? Result<std::string>(Status::not_found(dotenv_path)) : files::read_regular_file(dotenv_path, 1 << 20);
  if (!read && read.status().code() != StatusCode::kNotFound) return read.status();
  if (read) {
    const std::string& text = *read;
    auto parsed = parse_dotenv(text);
    if (!parsed) return Status::invalid_argument(dotenv_path + ": " + parsed.status().message());
    dotenv = std::move(*parsed);
  }
  Config c;
  c.db_path = default_data_dir(env) + "/lorekeeper.db";
  for (const char* k : {"db_path", "log_level", "open5e_base_url", "cache_ttl_days", "error_cache_ttl_seconds",
                        "legacy_tools", "preferred_edition"}) {
    c.origin[k] = "default";
  }
  auto lookup = [&](const std::string& name, std::string* origin) -> std::optional<std::string> {
    if (auto v = env(name)) {
      *origin = "env";
      return v;
    }
    if (auto it = dotenv.find(name); it != dotenv.end()) {
      *origin = ".env";
      return it->second;
    }
    return std::nullopt;
  };
  std::string origin;
  auto read_string = [&](const char* name, const char* field, std::string* dst, bool trim) {
    if (auto v = lookup(name, &origin)) {
      *dst = trim ? std::string(text::trim(*v)) : *v;
      c.origin[field] = origin;
    }
  };
  read_string("LOREKEEPER_DB_PATH", "db_path", &c.db_path, false);
  if (!c.db_path.empty() && c.db_path[0] == '~') c.db_path = env("HOME").value_or("") + c.db_path.substr(1);
  read_string("LOREKEEPER_LOG_LEVEL", "log_level", &c.log_level, false);
  read_string("LOREKEEPER_OPEN5E_BASE_URL", "open5e_base_url", &c.open5e_base_url, false);
  auto read_int = [&](const char* name, const char* field, int* dst) -> Status {
    if (auto v = lookup(name, &origin)) {
      char* end = nullptr;
      long n = std::strtol(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || n < 0 || n > 1000000000L) {
        return Status::invalid_argument(std::string(name) + " must be a non-negative integer, got '" + *v + "'");
      }
      *dst = static_cast<int>(n);
      c.origin[field] = origin;
    }
    return Status::ok();
  };
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_CACHE_TTL_DAYS", "cache_ttl_days", &c.cache_ttl_days));
  LOREKEEPER_RETURN_IF_ERROR(
      read_int("LOREKEEPER_ERROR_CACHE_TTL_SECONDS", "error_cache_ttl_seconds", &c.error_cache_ttl_seconds));
  LOREKEEPER_RETURN_IF_ERROR(
      read_int("LOREKEEPER_HTTP_TIMEOUT_SECONDS", "http_timeout_seconds", &c.http_timeout_seconds));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_HTTP_RETRIES", "http_retries", &c.http_retries));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_EMBED_THREADS", "embed_threads", &c.embed_threads));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_EMBED_PASSAGES", "embed_passages", &c.embed_passages));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_HTTP_PORT", "http_port", &c.http_port));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_HTTP_THREADS", "http_threads", &c.http_threads));
  if (c.http_port > 65535) {
    return Status::invalid_argument("LOREKEEPER_HTTP_PORT must be 0-65535, got " + std::to_string(c.http_port));
  }
  if (c.http_threads < 1 || c.http_threads > 256) {
    return Status::invalid_argument("LOREKEEPER_HTTP_THREADS must be 1-256, got " + std::to_string(c.http_threads));
  }
  LOREKEEPER_RETURN_IF_ERROR(
      read_int("LOREKEEPER_HTTP_MAX_CONNECTIONS", "http_max_connections", &c.http_max_connections));
  LOREKEEPER_RETURN_IF_ERROR(read_int("LOREKEEPER_HTTP_MAX_CONNECTIONS_PER_CLIENT", "http_max_connections_per_client",
                                      &c.http_max_connections_per_client));
  if (c.http_max_connections < 0 || c.http_max_connections > 100000) {
    return Status::invalid_argument("LOREKEEPER_HTTP_MAX_CONNECTIONS must be 0-100000, got " +
                                    std::to_string(c.http_max_connections));
  }
  if (c.http_max_connections_per_client < 1 || c.http_max_connections_per_client > 100000) {
    return Status::invalid_argument("LOREKEEPER_HTTP_MAX_CONNECTIONS_PER_CLIENT must be 1-100000, got " +
                                    std::to_string(c.http_max_connections_per_client));
  }
  read_string("LOREKEEPER_HTTP_HOST", "http_host", &c.http_host, true);
  read_string("LOREKEEPER_HTTP_TOKEN", "http_token", &c.http_token, true);
  read_string("LOREKEEPER_HTTP_ALLOWED_HOSTS", "http_allowed_hosts", &c.http_allowed_hosts, false);
  read_string("LOREKEEPER_HTTP_CORS_ORIGINS", "http_cors_origins", &c.http_cors_origins, false);
  if (c.embed_threads < 1 || c.embed_threads > 64) {
    return Status::invalid_argument("LOREKEEPER_EMBED_THREADS must be 1-64, got " + std::to_string(c.embed_threads));
  }
  if (c.embed_passages < 1 || c.embed_passages > 16) {
    return Status::invalid_argument("LOREKEEPER_EMBED_PASSAGES must be 1-16, got " + std::to_string(c.embed_passages));
  }
  if (auto v = lookup("LOREKEEPER_EMBED", &origin)) {
    const std::string m = text::lower(text::trim(*v));
    if (m != "auto" && m != "off" && m != "stored") {
      return Status::invalid_argument("LOREKEEPER_EMBED must be auto, off or stored, got '" + *v + "'");
    }
    c.embed = m;
    c.origin["embed"] = origin;
  }
  if (auto v = lookup("LOREKEEPER_AUTO_SYNC", &origin)) {
    const std::string m = text::lower(text::trim(*v));
    if (m != "auto" && m != "on" && m != "off") {
      return Status::invalid_argument("LOREKEEPER_AUTO_SYNC must be auto, on or off, got '" + *v + "'");
    }
    c.auto_sync = m;
    c.origin["auto_sync"] = origin;
  }
  if (auto v = lookup("LOREKEEPER_PREFERRED_EDITION", &origin)) {
    std::string e = text::lower(text::trim(*v));
    if (e == "2014" || e == "2024") e = "5e-" + e;
    if (e != "5e-2014" && e != "5e-2024") {
      return Status::invalid_argument("LOREKEEPER_PREFERRED_EDITION must be 5e-2014 or 5e-2024, got '" + *v + "'");
    }
    c.preferred_edition = e;
    c.origin["preferred_edition"] = origin;
  }
  if (auto v = lookup("LOREKEEPER_LEGACY_TOOLS", &origin)) {
    if (!parse_bool(*v, &c.legacy_tools)) {
      return Status::invalid_argument("LOREKEEPER_LEGACY_TOOLS must be 0/1/true/false, got '" + *v + "'");
    }
    c.origin["legacy_tools"] = origin;
  }
  return c;
}

}  // namespace lorekeeper
