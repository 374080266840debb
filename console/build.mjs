// Builds the console and GraphiQL into app/console/dist, the copy the Python package serves.
//
//   node console/build.mjs              generate types, type-check, build, write dist/build.json
//   node console/build.mjs --typecheck [--schema PATH]  generate types and type-check only (the tests)
//   node console/build.mjs --source-hash  print the hash of what the build is made from
//
// dist/ is committed so that `pip install -e .` then `quiver serve` needs no Node.js; build.json
// records the source hash and each output file's SHA-256, and tests/console/test_build.py checks
// both, so sources edited without a rebuild (or output edited by hand) fail the test suite.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { generate } from "./codegen.mjs";

const CONSOLE_DIR = dirname(fileURLToPath(import.meta.url));
const REPOSITORY_DIR = dirname(CONSOLE_DIR);
export const DIST_DIR = join(REPOSITORY_DIR, "app", "console", "dist");
const GENERATED_DIR = join(CONSOLE_DIR, "src", "generated");
// The packages whose code ends up in the bundles, and the bundler: their locked versions
// (with everything they depend on) are part of the source hash.
const BUILD_PACKAGES = ["preact", "graphql-ws", "graphiql", "@graphiql/toolkit", "react", "react-dom", "vite"];

function files(directory) {
  return readdirSync(directory)
    .sort()
    .flatMap((name) => {
      const path = join(directory, name);
      if (path === GENERATED_DIR) return [];
      return statSync(path).isDirectory() ? files(path) : [path];
    });
}

function lockedClosure() {
  const lock = JSON.parse(readFileSync(join(REPOSITORY_DIR, "package-lock.json"), "utf8"));
  const packages = lock.packages;
  // Node's resolution: a dependency of the package at `from` is the nearest node_modules/<name> up its path.
  const resolve = (from, name) => {
    let base = from;
    for (;;) {
      const key = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (packages[key]) return key;
      if (!base) return null;
      const cut = base.lastIndexOf("/node_modules/");
      base = cut < 0 ? "" : base.slice(0, cut);
    }
  };
  const seen = new Map();
  const pending = BUILD_PACKAGES.map((name) => resolve("", name));
  while (pending.length > 0) {
    const key = pending.pop();
    if (key === null || seen.has(key)) continue;
    const entry = packages[key];
    seen.set(key, `${entry.version} ${entry.integrity ?? ""}`);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.peerDependencies })) {
      pending.push(resolve(key, name));
    }
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** SHA-256 over the console's own files (not the generated types) and the locked build packages. */
export function sourceHash() {
  const hash = createHash("sha256");
  for (const path of files(CONSOLE_DIR)) {
    hash.update(relative(REPOSITORY_DIR, path).split(sep).join("/"));
    hash.update("\0");
    hash.update(readFileSync(path));
    hash.update("\0");
  }
  for (const [key, locked] of lockedClosure()) hash.update(`${key}@${locked}\n`);
  return hash.digest("hex");
}

function typecheck() {
  const tsc = join(REPOSITORY_DIR, "node_modules", ".bin", "tsc");
  const result = spawnSync(tsc, ["--noEmit", "-p", join(CONSOLE_DIR, "tsconfig.json")], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("the console does not type-check against schema/schema.graphql");
}

async function build() {
  const { build: viteBuild } = await import("vite");
  await viteBuild({ configFile: join(CONSOLE_DIR, "vite.config.mjs"), logLevel: "warn" });
  const outputs = {};
  for (const path of files(DIST_DIR)) {
    const name = relative(DIST_DIR, path).split(sep).join("/");
    if (name === "build.json") continue;
    outputs[name] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  const info = { sourceHash: sourceHash(), files: outputs };
  writeFileSync(join(DIST_DIR, "build.json"), `${JSON.stringify(info, null, 2)}\n`);
}

async function main(argv) {
  if (argv.includes("--source-hash")) {
    console.log(sourceHash());
    return;
  }
  const schemaAt = argv.indexOf("--schema");
  await generate(schemaAt >= 0 ? { schemaPath: argv[schemaAt + 1] } : {});
  typecheck();
  if (argv.includes("--typecheck")) return;
  await build();
  console.log(`built ${relative(REPOSITORY_DIR, DIST_DIR)}`);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error.message);
  process.exit(1);
});
