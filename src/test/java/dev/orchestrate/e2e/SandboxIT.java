package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agent.sandbox: bwrap} with the real bubblewrap (issue 43): a hostile agent in its worktree
 * tries to delete the user's {@code .git}, write into the user's checkout and outside it, plant a
 * file in {@code $HOME}, read the runner's environment under {@code /proc} and look into the state
 * directory; each fails, while its own work (a file in its worktree, its result) succeeds and lands.
 * The same agent without the sandbox reaches what it tries (the control: the probes are real).
 * Skipped, with the reason, where bwrap is missing or cannot start a sandbox.
 */
class SandboxIT {
  private static final String SECRET = "hook-signing-SANDBOX-7f3a9c";

  @TempDir
  Path dir;

  private GitRepo repo;
  private Path home;
  private Path victim;

  @BeforeEach
  void setUp() throws Exception {
    Sandboxes.assumeBwrap();
    repo = GitRepo.init(dir.resolve("checkout"));
    repo.write("src/app.txt", "the user's code\n");
    repo.commitAll("the user's work");
    home = Files.createDirectories(dir.resolve("home"));
    victim = Files.createDirectories(dir.resolve("victim"));
    Files.writeString(Files.createDirectories(home.resolve(".ssh")).resolve("id_ed25519"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n");
    Files.writeString(victim.resolve("precious.txt"), "keep me\n");
  }

  private void project(String sandbox) throws IOException {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, """
        #!/usr/bin/env bash
        set -u
        CHECKOUT='%s'; VICTIM='%s'; SECRET='%s'
        REPORT="$(dirname "$ORCHESTRATE_RESULT_FILE")/report.txt"
        {
          if [ "${HOSTILE_RM:-}" = 1 ]; then
            rm -rf "$CHECKOUT/.git" 2>/dev/null; [ -d "$CHECKOUT/.git/objects" ] && echo git=kept || echo git=deleted
          fi
          echo planted 2>/dev/null > "$HOME/planted.txt" && echo home=written || echo home=refused
          grep -q BEGIN "$HOME/.ssh/id_ed25519" 2>/dev/null && echo ssh=read || echo ssh=hidden
          echo changed 2>/dev/null > "$CHECKOUT/src/app.txt" && echo checkout=written || echo checkout=refused
          echo changed 2>/dev/null > "$VICTIM/precious.txt" && echo outside=written || echo outside=refused
          found=no
          for f in /proc/[0-9]*/environ; do grep -qa "$SECRET" "$f" 2>/dev/null && found=yes; done
          echo proc=$found
          [ -e "$CHECKOUT/.orchestrate/state.db" ] && echo state=visible || echo state=hidden
          echo scratch 2>/dev/null > "$TMPDIR/scratch.txt" && echo tmp=written || echo tmp=refused
          echo "the feature" > feature.txt && echo work=written || echo work=refused
        } > "$REPORT"
        printf '{"result":"phase_complete","summary":"built"}' > "$ORCHESTRATE_RESULT_FILE"
        """.formatted(repo.dir, victim, SECRET));
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
          kill_grace: 1s
          sandbox: %s
        execution: {workspace: worktree, max_retries: 0}
        notify:
          - {type: webhook, name: hook, url: "http://127.0.0.1:9/hook", secret_env: HOOK_SIGNING, events: [item_done]}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - name: build
                instructions: "Build."
                verify: [{name: tests, run: "test -f feature.txt && { echo x > '%s/gate.txt' 2>/dev/null; true; }"}]
        """.formatted(script, sandbox, victim));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.commitAll("orchestrate project");
  }

  private Launcher.Result run(boolean hostileRm) throws Exception {
    ProcessBuilder builder = Launcher.builder(repo.dir, "run", "--no-live", "--quiet");
    Map<String, String> env = builder.environment();
    env.put("HOME", home.toString());
    env.put("HOOK_SIGNING", SECRET);
    env.put("HOSTILE_RM", hostileRm ? "1" : "0");
    Process p = builder.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
        .start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the run ends");
    return new Launcher.Result(p.exitValue(), Files.readString(dir.resolve("out.txt")),
        Files.readString(dir.resolve("err.txt")));
  }

  private List<String> report() throws IOException {
    try (Stream<Path> jobs = Files.list(repo.dir.resolve(".orchestrate/jobs"))) {
      Path job = jobs.filter(j -> j.getFileName().toString().contains("-A-build-1")).findFirst().orElseThrow();
      return Files.readAllLines(job.resolve("report.txt"));
    }
  }

  @Test
  void a_hostile_agent_in_the_sandbox_reaches_nothing_outside_its_worktree_and_its_work_still_lands()
      throws Exception {
    project("bwrap");

    Launcher.Result r = run(true);

    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("git=kept", "home=refused", "ssh=hidden", "checkout=refused", "outside=refused", "proc=no",
        "state=hidden",
        "tmp=written", "work=written"), report());
    assertTrue(Files.isDirectory(repo.dir.resolve(".git/objects")), "the user's .git is there");
    assertEquals("the user's code\n", Files.readString(repo.dir.resolve("src/app.txt")));
    assertEquals("keep me\n", Files.readString(victim.resolve("precious.txt")));
    assertFalse(Files.exists(home.resolve("planted.txt")));
    assertFalse(Files.exists(victim.resolve("gate.txt")), "the gate ran in the sandbox too");
    assertEquals("the feature", repo.git("show", "main:feature.txt").strip(), "the work landed on main");
    assertTrue(Launcher.run(repo.dir, "status", "--json").out().contains("\"done\" : 1"));
  }

  @Test
  void without_the_sandbox_the_same_agent_reaches_the_runners_environment_and_home() throws Exception {
    project("none");

    run(false); // the item may block: the agent changed the user's checkout, which integration refuses

    List<String> report = report();
    assertTrue(report.contains("home=written") && report.contains("ssh=read") && report.contains("proc=yes")
        && report.contains("outside=written"),
        "the probes reach what they try when nothing stops them: " + report);
  }
}
