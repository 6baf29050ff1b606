// Puts the build just made (`.dist-next`) in place of `dist`, unless every
// file of the two is the same: then `dist` is left as it was. The app embeds
// `dist` and Cargo rebuilds it whenever a file there is newer (tauri-build),
// so rewriting an unchanged UI would relink the app every time a script
// builds the UI: seconds for the debug build, minutes for the dist profile
// that `scripts/e2e.sh measure` and `scripts/package.sh` make.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

const next = ".dist-next";
const dist = "dist";

/** Every file under `root`, as paths relative to it, in order. */
function files(root, dir = "") {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? files(root, path) : [path];
    })
    .sort();
}

function sameTree(a, b) {
  if (!existsSync(b)) return false;
  const left = files(a);
  const right = files(b);
  return (
    left.length === right.length &&
    left.every((path, i) => path === right[i] && readFileSync(join(a, path)).equals(readFileSync(join(b, path))))
  );
}

if (sameTree(next, dist)) {
  rmSync(next, { recursive: true, force: true });
} else {
  rmSync(dist, { recursive: true, force: true });
  renameSync(next, dist);
}
