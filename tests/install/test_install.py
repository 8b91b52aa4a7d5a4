#!/usr/bin/env python3
"""The install a user gets: `cmake --install --strip` and the Debian package CPack builds put a stripped binary,
its man page and the licences where a system expects them, the package declares the libraries the binary needs,
and the installed binary answers from its bundled data on a machine where it has never run.
The MCP Bundle is validated by the official mcpb CLI and its server started from the unpacked bundle; its MCP registry
entry (server.json) is validated against the registry's published schema (tests/install/schemas).
Usage: test_install.py BUILD_DIR
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

BUILD = os.path.abspath(sys.argv[1])
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TMP = tempfile.mkdtemp(prefix="lk-install-")


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=600, **kw)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def fresh_env(root):
    """A user who has never run it: an empty home, no settings from this machine's environment."""
    home = os.path.join(root, "home")
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREKEEPER_") and not k.startswith("XDG_")}
    env.update(HOME=home, LOREKEEPER_EMBED="off")
    return env


def subcommands(binary):
    out = run(binary, "--help").stdout
    names = re.findall(r"^  ([a-z]+) {2,}", out.split("Subcommands:")[1], re.M)
    assert len(names) > 8, out
    return names


class Install(unittest.TestCase):
    def test_cmake_install_puts_a_stripped_binary_its_man_page_and_the_licences_in_place(self):
        prefix = os.path.join(TMP, "prefix")
        r = run("cmake", "--install", BUILD, "--prefix", prefix, "--strip")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        binary = os.path.join(prefix, "bin", "lorekeeper")
        for path in ("bin/lorekeeper", "share/man/man1/lorekeeper.1", "share/doc/lorekeeper/LICENSE",
                     "share/doc/lorekeeper/README.md", "share/doc/lorekeeper/CONTENT-LICENSES.md"):
            self.assertTrue(os.path.isfile(os.path.join(prefix, path)), path)
        self.assertNotIn("not stripped", run("file", binary).stdout)
        self.assertLess(os.path.getsize(binary), os.path.getsize(os.path.join(BUILD, "lorekeeper")))
        self.assertIn("MIT License", read(os.path.join(prefix, "share/doc/lorekeeper/LICENSE")))
        self.assertIn("CC-BY", read(os.path.join(prefix, "share/doc/lorekeeper/CONTENT-LICENSES.md")))
        # The man page names every command the binary has (so neither drifts from the other) and renders.
        page = read(os.path.join(prefix, "share/man/man1/lorekeeper.1"))
        for name in subcommands(binary):
            self.assertRegex(page, r'\n\.BI? "?%s\b' % name, "the man page lacks the command " + name)
        if shutil.which("man"):
            r = run("man", "-l", os.path.join(prefix, "share/man/man1/lorekeeper.1"), env=dict(os.environ, MANWIDTH="80"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("lorekeeper", r.stdout)

    def test_the_debian_package_declares_its_libraries_and_its_binary_answers_on_first_run(self):
        out = os.path.join(TMP, "pkg")
        r = run("cpack", "-G", "DEB", "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-B", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        debs = [f for f in os.listdir(out) if f.endswith(".deb")]
        self.assertEqual(len(debs), 1, debs)
        deb = os.path.join(out, debs[0])
        info = run("dpkg-deb", "-f", deb, "Package", "Version", "Depends", "Section").stdout
        self.assertIn("Package: lorekeeper", info)
        depends = re.search(r"^Depends: (.*)$", info, re.M).group(1)
        # From the libraries the binary links, and libcurl, loaded only when a sync reads the live API.
        for lib in ("libsqlite3-0", "libzstd1", "libutf8proc2", "libopenblas", "libstdc++6", "libcurl4"):
            self.assertIn(lib, depends)
        files = run("dpkg-deb", "-c", deb).stdout
        for path in ("./usr/bin/lorekeeper", "./usr/share/man/man1/lorekeeper.1", "./usr/share/doc/lorekeeper/LICENSE"):
            self.assertIn(path, files)
        root = os.path.join(TMP, "root")
        self.assertEqual(run("dpkg-deb", "-x", deb, root).returncode, 0)
        binary = os.path.join(root, "usr", "bin", "lorekeeper")
        self.assertNotIn("not stripped", run("file", binary).stdout)
        env = fresh_env(root)
        r = run(binary, "get", "Fireball", "--kind", "spell", env=env, cwd=root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("### Fireball", r.stdout)
        self.assertIn("building it from the bundled Open5e snapshot", r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(env["HOME"], ".local/share/lorekeeper/lorekeeper.db")))
        # And it serves MCP over stdio as a host starts it.
        init = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_creature",'
                '"arguments":{"search":"Owlbear","limit":1}}}\n')
        r = subprocess.run([binary, "serve"], input=init, capture_output=True, text=True, timeout=60, env=env, cwd=root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Owlbear", r.stdout.splitlines()[-1])

    def test_with_the_model_the_first_start_answers_by_meaning_without_embedding(self):
        """The model installed (`lorekeeper model fetch`; here this machine's copy) and no store: the first tool call
        builds the store from the bundled snapshot with its precomputed vectors, and that very search is ranked by
        meaning, with no "being prepared" notice. Nothing was embedded on this machine."""
        model_dir = os.environ.get("LOREKEEPER_MODEL_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lorekeeper", "models",
            "all-MiniLM-L6-v2")
        self.assertTrue(os.path.isfile(os.path.join(model_dir, "model.safetensors")),
                        "the model is not installed in %s (scripts/setup.sh)" % model_dir)
        prefix = os.path.join(TMP, "prefix-meaning")
        r = run("cmake", "--install", BUILD, "--prefix", prefix, "--strip")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        binary = os.path.join(prefix, "bin", "lorekeeper")
        root = os.path.join(TMP, "meaning-user")
        env = fresh_env(root)
        del env["LOREKEEPER_EMBED"]
        env["LOREKEEPER_MODEL_DIR"] = model_dir
        calls = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                 '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_creature",'
                 '"arguments":{"search":"flying white steed","limit":5,"detail":"summary"}}}\n')
        r = subprocess.run([binary, "serve"], input=calls, capture_output=True, text=True, timeout=120, env=env,
                           cwd=root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("building it from the bundled Open5e snapshot", r.stderr)
        self.assertNotIn("embedded ", r.stderr)  # the indexer had nothing to encode
        answer = json.loads(r.stdout.splitlines()[-1])["result"]
        self.assertFalse(answer.get("isError"), answer)
        structured = answer["structuredContent"]
        self.assertNotIn("prepared", structured.get("message", ""), structured.get("message"))
        names = [x["name"] for x in structured["result"]]
        self.assertIn("Pegasus", names[:3], names)
        pegasus = next(x for x in structured["result"] if x["name"] == "Pegasus")
        self.assertIn("meaning", pegasus["_matched"], pegasus)
        status = json.loads(run(binary, "status", "--json", env=env, cwd=root).stdout)
        self.assertEqual(status["vectors"]["embedded"], status["vectors"]["entities"], status["vectors"])
        self.assertEqual(status["vectors"]["semantic_search"], "ready")

    def test_the_mcp_bundle_validates_and_its_server_starts_from_the_unpacked_bundle(self):
        out = os.path.join(TMP, "lorekeeper.mcpb")
        r = run(os.path.join(SOURCE, "scripts", "make-mcpb.sh"), BUILD, out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Manifest schema validation passes", r.stdout)  # the official mcpb CLI
        unpacked = os.path.join(TMP, "bundle")
        with zipfile.ZipFile(out) as z:
            z.extractall(unpacked)
            mode = z.getinfo("server/lorekeeper").external_attr >> 16
        self.assertTrue(mode & 0o111, "the bundled binary is not executable: %o" % mode)
        manifest = json.loads(read(os.path.join(unpacked, "manifest.json")))
        binary = os.path.join(unpacked, manifest["server"]["entry_point"])
        os.chmod(binary, 0o755)  # zipfile does not restore modes
        # One version number: the binary's, the manifest's, the package's.
        version = run(binary, "--version").stdout.split()[-1]
        self.assertEqual(manifest["version"], version)
        cpack = re.search(r'set\(CPACK_PACKAGE_VERSION "([^"]+)"\)', read(os.path.join(BUILD, "CPackConfig.cmake")))
        self.assertEqual(cpack.group(1), version)
        config = manifest["server"]["mcp_config"]
        command = config["command"].replace("${__dirname}", unpacked)
        init = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')
        r = subprocess.run([command] + config["args"], input=init, capture_output=True, text=True, timeout=60,
                           env=fresh_env(os.path.join(TMP, "bundle-user")), cwd=unpacked)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout.splitlines()[0])["result"]["serverInfo"]["version"], version)
        self.check_registry_entry(out, version)

    def check_registry_entry(self, bundle, version):
        """server.json beside the bundle: valid under the MCP registry's published schema, with the bundle's version,
        release asset name and SHA-256."""
        path = os.path.join(os.path.dirname(bundle), "server.json")
        entry = json.loads(read(path))
        schema_path = os.path.join(SOURCE, "tests", "install", "schemas", "server.schema.2025-12-11.json")
        self.assertEqual(entry["$schema"], json.loads(read(schema_path))["$id"])
        self.assertEqual(entry["version"], version)
        package = entry["packages"][0]
        with open(bundle, "rb") as f:
            self.assertEqual(package["fileSha256"], hashlib.sha256(f.read()).hexdigest())
        self.assertTrue(package["identifier"].endswith("/v%s/lorekeeper-%s-linux-%s.mcpb" % (version, version, os.uname().machine)),
                        package["identifier"])
        self.assertRegex(entry["name"], r"^io\.github\.[^/]+/lorekeeper$")
        # The schema's validator (Python jsonschema, in the e2e virtual environment scripts/test-setup.sh makes), on the
        # entry and on a broken copy, so a validator that accepts anything fails here.
        broken = dict(entry, description="x" * 101)
        broken_path = os.path.join(TMP, "broken-server.json")
        with open(broken_path, "w", encoding="utf-8") as f:
            json.dump(broken, f)
        python = os.path.join(SOURCE, "tests", "e2e", ".venv", "bin", "python")
        self.assertTrue(os.access(python, os.X_OK), "%s is missing: run scripts/test-setup.sh" % python)
        check = ("import json, sys, jsonschema\n"
                 "schema = json.load(open(sys.argv[1]))\n"
                 "v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)\n"
                 "errors = sorted(e.message for e in v.iter_errors(json.load(open(sys.argv[2]))))\n"
                 "print(json.dumps(errors))\n")
        r = run(python, "-c", check, schema_path, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), [], "server.json does not validate")
        r = run(python, "-c", check, schema_path, broken_path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(any("too long" in e for e in json.loads(r.stdout)), r.stdout)


if __name__ == "__main__":
    try:
        unittest.main(argv=[sys.argv[0], "-v"])
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
