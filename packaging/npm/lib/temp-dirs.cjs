// @ts-check
/**
 * The working folder of each `startEmulator()` (its fixture with plaintext keys, the ready file): a fresh
 * private mkdtemp (0700) named with the PID of the Node process that owns it. One left behind by a process
 * that died without `stop()` is removed by the next start — only a real folder (never a symlink) this user
 * owns, mode 0700, whose owner process is gone.
 */
"use strict";
const { lstatSync, mkdtempSync, readdirSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

const PREFIX = "ext-emulator-";
const OWNED = /^ext-emulator-(\d+)-/;

/** @param {number} pid */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is just not ours to signal.
    return /** @type {NodeJS.ErrnoException} */ (e).code === "EPERM";
  }
}

/** @param {string} path */
function ownPrivateDir(path) {
  try {
    const st = lstatSync(path);
    if (!st.isDirectory()) return false;
    // Windows has neither POSIX modes nor uids: the folder being a real one in this user's temp dir is all.
    if (typeof process.getuid !== "function") return true;
    return (st.mode & 0o077) === 0 && st.uid === process.getuid();
  } catch {
    return false;
  }
}

/**
 * Removes the working folders of Node processes that are gone; returns their names.
 * @param {string} [dir]
 * @returns {string[]}
 */
function sweepWorkDirs(dir = tmpdir()) {
  /** @type {string[]} */
  const removed = [];
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const owner = OWNED.exec(name);
    if (!owner) continue;
    const pid = Number(owner[1]);
    const path = join(dir, name);
    if (pid === process.pid || processAlive(pid) || !ownPrivateDir(path)) continue;
    // rm removes a link inside the folder, never what it points to.
    rmSync(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * A fresh private working folder, after sweeping those of dead processes.
 * @param {string} [dir]
 * @returns {string}
 */
function createWorkDir(dir = tmpdir()) {
  sweepWorkDirs(dir);
  return mkdtempSync(join(dir, `${PREFIX}${process.pid}-`));
}

module.exports = { createWorkDir, sweepWorkDirs };
