package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent script the user has not committed, named relative to the backlog's directory, runs in
 * worktree mode too (issue 30, item 1): the worktree holds only tracked files, so the path is the
 * checkout's, and what preflight and {@code --dry-run} report is what runs.
 */
class WorktreeAgentPathsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Records where it ran, then succeeds with a file of the item's. */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      echo "$PWD" > "$MARKS/cwd-$ORCHESTRATE_ITEM_ID"
      echo "$0" > "$MARKS/script-$ORCHESTRATE_ITEM_ID"
      echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
      echo done
      """;

  @TempDir
  Path tmp;

  private GitRepo repo;

  /** The project in subdirectory {@code proj} of the repository; the agent script written but not committed. */
  private Path project(String command) throws Exception {
    repo = GitRepo.init(tmp.resolve("repo"));
    Path marks = Files.createDirectories(tmp.resolve("marks"));
    repo.write("proj/backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.write("proj/orchestrate.yaml", """
        agent:
          command: %s
          env: {MARKS: "%s"}
          timeout: 60s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build it."}
        """.formatted(command, marks));
    repo.commitAll("project");
    Path script = repo.dir.resolve("proj/agents/agent.sh");
    Files.createDirectories(script.getParent());
    Files.writeString(script, AGENT);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertTrue(repo.git("status", "--porcelain").contains("proj/agents/"), "the script is not committed");
    return repo.dir.resolve("proj");
  }

  private CliRunner.Result cli(Path proj, String... args) {
    List<String> all = new ArrayList<>(List.of("--state", proj.resolve(".orchestrate").toString(), "--config",
        proj.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    all.add(proj.resolve("backlog.yaml").toString());
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  private void runsToDone(String command) throws Exception {
    Path proj = project(command);
    CliRunner.Result r = cli(proj, "run", "--no-live", "--json");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    JsonNode report = JSON.readTree(r.out());
    assertEquals(1, report.path("items").path("done").asInt(), r.out());
    String cwd = Files.readString(tmp.resolve("marks/cwd-A")).strip();
    assertTrue(cwd.endsWith("/proj/.orchestrate/worktrees/A/proj"), "the agent ran in its worktree (removed since), at "
        + "the backlog's place: " + cwd);
    assertEquals(proj.resolve("agents/agent.sh").toString(), Files.readString(tmp.resolve("marks/script-A")).strip(),
        "the checkout's script ran");
    assertEquals("work of A", repo.git("show", "main:proj/item-A.txt").strip(), "its work integrated");
    assertFalse(repo.git("ls-tree", "-r", "--name-only", "main").contains("agents/agent.sh"),
        "the script stays the user's, uncommitted");
  }

  @Test
  void an_uncommitted_script_given_to_an_interpreter_runs_in_the_worktree_and_the_item_is_done() throws Exception {
    runsToDone("[\"bash\", \"agents/agent.sh\"]");
  }

  @Test
  void an_uncommitted_program_given_by_a_relative_path_runs_in_the_worktree_and_the_item_is_done()
      throws Exception {
    runsToDone("[\"./agents/agent.sh\"]");
  }

  @Test
  void dry_run_reports_the_script_that_will_run() throws Exception {
    Path proj = project("[\"bash\", \"agents/agent.sh\"]");
    CliRunner.Result r = cli(proj, "run", "--dry-run", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(proj.resolve("agents/agent.sh").toString(), JSON.readTree(r.out()).path("agent").path("script")
        .asText(), r.out());
    CliRunner.Result text = cli(proj, "run", "--dry-run");
    assertTrue(text.out().contains(", running " + proj.resolve("agents/agent.sh")
        + " (from your checkout, also for agents in worktrees)"), text.out());
  }

  @Test
  void a_gate_script_git_does_not_track_is_refused_before_the_run_since_worktrees_hold_only_tracked_files()
      throws Exception {
    Path proj = project("[\"true\"]");
    Files.writeString(proj.resolve("orchestrate.yaml"), Files.readString(proj.resolve("orchestrate.yaml"))
        .replace("- {name: build, instructions: \"Build it.\"}",
            "- {name: build, instructions: \"Build it.\", verify: [{name: tests, run: \"bash checks/all.sh -q\"}]}"));
    Path check = proj.resolve("checks/all.sh");
    Files.createDirectories(check.getParent());
    Files.writeString(check, "exit 0\n");
    CliRunner.Result r = cli(proj, "run", "--no-live");
    assertEquals(2, r.exitCode(), r.out() + r.err());
    assertEquals(List.of("orchestrate: error: verify gate 'tests' of phase 'build' (pipeline 'p'): checks/all.sh is "
        + "not tracked by git, and it runs in each item's worktree, which holds only tracked files: commit it "
        + "(git add checks/all.sh && git commit), or give its absolute path"), r.err().lines().toList());
    assertFalse(Files.exists(proj.resolve(".orchestrate/state.db")), "refused before the state is made");
    repo.commitAll("the checks");
    assertEquals(0, cli(proj, "run", "--dry-run").exitCode());
  }
}
