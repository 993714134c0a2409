package dev.orchestrate.testing;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A project of pairs of items that are each green alone and red together, with no textual
 * conflict: item {@code A<k>} makes {@code base()} return 10 ({@code base<k>.txt}), item
 * {@code B<k>} adds {@code double() = base() * 2} with a test expecting 2 ({@code double<k>.txt}).
 * The gate ({@code check.sh}) is red while some pair has both and no fix. The agent fixes its pair
 * when its prompt carries that gate's report, as an agent sent back by the merge queue would.
 */
public final class SemanticConflicts {
  private SemanticConflicts() {
  }

  /** The agent: its item's change; with the report of its pair in the prompt, the fix too. */
  public static String agent(double seconds) {
    return """
        #!/usr/bin/env bash
        set -u
        id=$ORCHESTRATE_ITEM_ID; k=${id#?}
        echo "$id $ORCHESTRATE_ATTEMPT" >> "${LOG:-/dev/null}"
        case "$id" in
          A*) echo 10 > "base$k.txt";;
          B*) [ -f "double$k.txt" ] || echo 'base() * 2' > "double$k.txt";;
        esac
        if grep -q "AssertionError (pair $k)" "$ORCHESTRATE_PROMPT_FILE"; then
          echo "$id saw the report" >> "${LOG:-/dev/null}"
          echo 'fixed: base() * 2 == 2 * base()' > "double$k.txt"
        fi
        sleep %s
        echo "$id built"
        """.formatted(seconds);
  }

  /** The gate, which takes {@code seconds} before it looks. */
  public static String check(double seconds) {
    return """
        #!/bin/sh
        sleep %s
        for b in base*.txt; do
          k=${b#base}; k=${k%%.txt}
          if [ "$(cat "$b")" -ge 5 ] && [ -f "double$k.txt" ] && ! grep -q fixed "double$k.txt"; then
            echo "AssertionError (pair $k): 20 != 2"; exit 1
          fi
        done
        echo ok
        """.formatted(seconds);
  }

  /** {@code pairs} pairs' files at their start (base 1), the gate, and a backlog of their items. */
  public static void write(GitRepo repo, int pairs, double gateSeconds) {
    repo.write("check.sh", check(gateSeconds));
    StringBuilder backlog = new StringBuilder("schema_version: 1\nitems:\n");
    for (int k = 1; k <= pairs; k++) {
      repo.write("base" + k + ".txt", "1\n");
      backlog.append("  - {id: A").append(k).append(", title: base returns 10}\n");
      backlog.append("  - {id: B").append(k).append(", title: add double}\n");
    }
    repo.write("backlog.yaml", backlog.toString());
  }

  /** Whether the gate passes on {@code commit}, checked out on its own under {@code scratch}. */
  public static boolean green(GitRepo repo, String commit, Path scratch) throws IOException, InterruptedException {
    Path at = scratch.resolve("check-" + commit);
    repo.git("worktree", "add", "--quiet", "--detach", at.toString(), commit);
    try {
      Process p = new ProcessBuilder("sh", "check.sh").directory(at.toFile()).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } finally {
      repo.git("worktree", "remove", "--force", at.toString());
      Files.deleteIfExists(at);
    }
  }
}
