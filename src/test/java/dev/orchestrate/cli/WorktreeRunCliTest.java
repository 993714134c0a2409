package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.limits.LoopThread;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execution.workspace: worktree} end to end, in-process, with real git and real bash
 * agents that write into their working directory at the same moment and never commit.
 */
class WorktreeRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  /**
   * The agent: checks it runs in its own worktree, named by ORCHESTRATE_WORKSPACE and in the
   * prompt; that it sees no other item's files and no scratch file; waits at a barrier until
   * three agents run at once; writes its own file and a scratch file of one shared name, which it
   * removes before it finishes. Item FAIL fails its first attempt after leaving a file behind,
   * and its second attempt checks the file is gone. Items CONFLICT-* write one file differently.
   */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      id=$ORCHESTRATE_ITEM_ID; phase=$ORCHESTRATE_PHASE; attempt=$ORCHESTRATE_ATTEMPT
      fail() { echo "$id $phase: $*" >&2; echo "$id $phase: $*" >> "$PROBLEMS"; exit 1; }
      [ "$PWD" = "$ORCHESTRATE_WORKSPACE" ] || fail "cwd $PWD is not ORCHESTRATE_WORKSPACE $ORCHESTRATE_WORKSPACE"
      grep -q "own git worktree \\`$ORCHESTRATE_WORKSPACE\\`" "$ORCHESTRATE_PROMPT_FILE" || fail "the prompt does not name the worktree"
      for f in item-*.txt; do
        [ -e "$f" ] || continue
        case "$f" in item-$id-*) ;; *) [ -n "$(git log --format=%H -1 -- "$f")" ] || fail "sees $f of another item";; esac
      done
      [ -e scratch.txt ] && fail "scratch.txt of another agent is here"
      [ -e "$USER_CHECKOUT/scratch.txt" ] && fail "an agent wrote into the user's checkout"
      echo "$id" > scratch.txt
      touch "$BARRIER/$id-$phase"
      for i in $(seq 1 300); do [ "$(ls "$BARRIER" | wc -l)" -ge "$BARRIER_SIZE" ] && break; sleep 0.1; done
      [ "$(ls "$BARRIER" | wc -l)" -ge "$BARRIER_SIZE" ] || fail "ran alone: the agents did not run $BARRIER_SIZE at once"
      if [ "$id" = FAIL ] && [ "$phase" = first ]; then
        if [ "$attempt" = 1 ]; then echo half > leftover.txt; rm scratch.txt; echo "crashed halfway" >&2; exit 1; fi
        [ -e leftover.txt ] && fail "attempt 2 sees attempt 1's leftover.txt"
      fi
      case "$id" in CONFLICT-*) [ "$phase" = second ] && echo "written by $id" > conflict.txt;; esac
      echo "$phase by $id" > "item-$id-$phase.txt"
      [ "$(cat scratch.txt)" = "$id" ] || fail "scratch.txt was overwritten"
      rm scratch.txt
      echo "wrote item-$id-$phase.txt"
      """;

  private GitRepo repo;
  private Path state;

  private GitRepo project(List<String> ids, String extraExecution) throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Files.createDirectories(tmp.resolve("barrier"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, AGENT);
    StringBuilder backlog = new StringBuilder("schema_version: 1\nitems:\n");
    for (String id : ids) {
      backlog.append("  - id: ").append(id).append("\n    title: Item ").append(id).append('\n');
    }
    repo.write("backlog.yaml", backlog.toString());
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
          env: {BARRIER: "%s", BARRIER_SIZE: "%d", PROBLEMS: "%s", USER_CHECKOUT: "%s"}
        execution:
          max_wip: 6
          max_concurrent: 3
          max_retries: 1
          workspace: worktree
          delete_merged_branches: false
        %s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: first
                instructions: "Do the first thing."
                destructive: true
              - name: second
                instructions: "Do the second thing."
        """.formatted(agent, tmp.resolve("barrier"), Math.min(3, ids.size()), tmp.resolve("problems.txt"), repo.dir,
        extraExecution.isEmpty() ? "" : "  " + extraExecution));
    repo.commitAll("backlog and config");
    return repo;
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state.toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  private String problems() throws Exception {
    Path file = tmp.resolve("problems.txt");
    return Files.exists(file) ? Files.readString(file) : "";
  }

  @Test
  void six_items_three_at_a_time_each_in_its_own_worktree_end_up_on_the_base_branch_one_commit_per_phase()
      throws Exception {
    List<String> ids = List.of("A", "B", "C", "D", "E", "FAIL");
    project(ids, "");
    repo.write("README.md", "the user's uncommitted edit\n");

    long onLoop = LoopThread.slowWorkOnLoop();
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString(), "--json");

    assertEquals(0, run.exitCode(), run.err() + problems());
    assertEquals("", problems());
    // issue 46: every git command of the run ran off the scheduler thread
    assertEquals(0, LoopThread.slowWorkOnLoop() - onLoop, "git on the scheduler thread, the first: "
        + LoopThread.firstSlowWorkOnLoop());
    JsonNode report = JSON.readTree(run.out());
    assertEquals(6, report.at("/items/done").asInt(), run.out());
    List<String> onMain = repo.subjects("main");
    for (String id : ids) {
      List<String> own = repo.subjects("orchestrate/" + id).stream().filter(s -> s.startsWith(id + " ")).toList();
      assertEquals(List.of(id + " second: wrote item-" + id + "-second.txt", id + " first: wrote item-" + id
          + "-first.txt"), own, "exactly one commit per successful phase on orchestrate/" + id);
      assertTrue(onMain.containsAll(own), "main has " + id + "'s commits: " + onMain);
      assertEquals("second by " + id + "\n", GitRepo.read(repo.dir.resolve("item-" + id + "-second.txt")));
      String body = repo.git("log", "-1", "--format=%b", "orchestrate/" + id);
      assertTrue(body.contains("Orchestrate-Job: ") && body.contains("Orchestrate-Attempt: "), body);
    }
    assertEquals("FAIL first: wrote item-FAIL-first.txt", repo.subjects("orchestrate/FAIL").get(1));
    assertFalse(Files.exists(repo.dir.resolve("leftover.txt")), "a failed attempt's file never reaches a commit");
    // the user's checkout: their edit kept, nothing else but the integrated files
    assertEquals("the user's uncommitted edit\n", GitRepo.read(repo.dir.resolve("README.md")));
    assertEquals(" M README.md", repo.git("status", "--porcelain").stripTrailing().replaceFirst("^\\s*", " "));
    assertFalse(Files.exists(repo.dir.resolve("scratch.txt")));
    // integrated worktrees are removed; jobs and status show the commits
    for (String id : ids) {
      assertFalse(Files.exists(state.resolve("worktrees").resolve(id)), id);
    }
    JsonNode jobs = JSON.readTree(cli("jobs", "--json").out()).get("jobs");
    int withCommit = 0;
    for (JsonNode job : jobs) {
      if (job.get("state").asText().equals("completed")) {
        assertTrue(job.get("commit").isTextual(), job.toString());
        withCommit++;
      } else {
        assertTrue(job.get("commit").isNull(), job.toString());
      }
    }
    assertEquals(12, withCommit);
    assertTrue(cli("jobs").out().lines().anyMatch(l -> l.matches("ID +ITEM .* LOG +COMMIT")), "jobs shows commits");
    String statusText = cli("status").out();
    assertTrue(statusText.contains("[orchestrate/A @ " + repo.head("orchestrate/A").substring(0, 12) + ", integrated]"),
        statusText);
    JsonNode status = JSON.readTree(cli("status", "--json").out()).get("items");
    for (JsonNode item : status) {
      assertEquals("integrated", item.at("/workspace/integration").asText(), item.toString());
      assertEquals(repo.head("orchestrate/" + item.get("id").asText()), item.at("/workspace/commit").asText());
    }
  }

  @Test
  void a_conflicting_pair_blocks_the_second_with_the_file_named_and_unblock_after_a_fix_integrates_it()
      throws Exception {
    project(List.of("CONFLICT-1", "CONFLICT-2"), "");

    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString(), "--json");
    assertEquals("", problems());
    JsonNode status = JSON.readTree(cli("status", "--json").out()).get("items");
    JsonNode blocked = null;
    for (JsonNode item : status) {
      if (item.get("status").asText().equals("blocked")) {
        blocked = item;
      }
    }
    assertNotNull(blocked, run.out() + run.err());
    String id = blocked.get("id").asText();
    String reason = blocked.get("blocked_reason").asText();
    assertTrue(reason.contains("conflict.txt"), reason);
    assertEquals("conflict", blocked.at("/workspace/integration").asText());
    Path worktree = state.resolve("worktrees").resolve(id);
    assertEquals("written by " + id + "\n", GitRepo.read(worktree.resolve("conflict.txt")), "its worktree is intact");
    String other = id.equals("CONFLICT-1") ? "CONFLICT-2" : "CONFLICT-1";
    assertEquals("written by " + other + "\n", GitRepo.read(repo.dir.resolve("conflict.txt")));

    // the person resolves it on the branch (keeping this item's version), then unblocks
    repo.git(worktree, "rebase", "--quiet", "-X", "theirs", "main");
    assertEquals(0, cli("unblock", id, "--notes", "resolved conflict.txt on the branch").exitCode());
    CliRunner.Result again = cli("run", repo.dir.resolve("backlog.yaml").toString(), "--json");
    assertEquals(0, again.exitCode(), again.err());
    assertEquals("written by " + id + "\n", GitRepo.read(repo.dir.resolve("conflict.txt")));
    JsonNode after = JSON.readTree(cli("status", "--json").out()).get("items");
    for (JsonNode item : after) {
      assertEquals("done", item.get("status").asText(), item.toString());
      assertEquals("integrated", item.at("/workspace/integration").asText(), item.toString());
    }
    assertFalse(Files.exists(worktree));
  }

  @Test
  void merge_none_leaves_each_branch_for_a_pull_request_and_the_base_branch_alone() throws Exception {
    project(List.of("A", "B"), "merge: none");
    String base = repo.head("main");
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err() + problems());
    assertEquals(base, repo.head("main"));
    assertEquals(2, repo.subjects("orchestrate/A").size() - 2, repo.subjects("orchestrate/A").toString());
    assertTrue(Files.isDirectory(state.resolve("worktrees/A")) && Files.isDirectory(state.resolve("worktrees/B")));

    // worktrees are a bounded structure: stats counts them and their bytes against retention.worktrees
    JsonNode worktrees = structure(JSON.readTree(cli("stats", "--json").out()), "worktrees");
    assertEquals(2, worktrees.get("rows").asLong(), worktrees.toString());
    assertTrue(worktrees.get("bytes").asLong() > 0, worktrees.toString());
    assertEquals(100, worktrees.at("/limit/max_rows").asLong(), worktrees.toString());
    assertEquals("7d", worktrees.at("/limit/max_age").asText(), worktrees.toString());

    // compact applies retention.worktrees: max_rows 0 removes both (clean) worktrees, never the branches
    GitRepo.write(state.resolve("worktrees/B"), "uncommitted.txt", "someone's work in progress\n");
    Path tight = tmp.resolve("tight.yaml");
    Files.writeString(tight, "retention: {worktrees: {max_rows: 0}}\n");
    CliRunner.Result compact = CliRunner.run(Map.of(), "--state", state.toString(), "--config", tight.toString(),
        "compact", "--json");
    assertEquals(0, compact.exitCode(), compact.err());
    assertEquals(1, JSON.readTree(compact.out()).at("/retention/worktrees/removed").asLong(), compact.out());
    assertFalse(Files.exists(state.resolve("worktrees/A")));
    assertTrue(Files.exists(state.resolve("worktrees/B/uncommitted.txt")), "uncommitted work is never discarded");
    assertNotNull(repo.head("orchestrate/A"));
    JsonNode after = structure(JSON.readTree(cli("stats", "--json").out()), "worktrees");
    assertEquals(1, after.get("rows").asLong(), after.toString());
    assertEquals(1, after.get("rows_pruned").asLong(), after.toString());
  }

  private static JsonNode structure(JsonNode stats, String name) {
    for (JsonNode s : stats.get("structures")) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no structure " + name + " in " + stats);
  }

  @Test
  void finished_items_worktrees_stay_within_retention_during_the_run_not_only_at_its_end() throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Path agent = tmp.resolve("count.sh");
    // each agent counts the items' worktrees on disk while it runs (its own included): not what
    // orchestrate keeps beside them, named with a '+' (up to 4 landed worktrees kept for the next
    // items). It counts after a moment: the sweep that an item's end asks for runs on a worker once
    // no item's work runs (the next item's preparation, this agent's start), so beside its agent
    // (the verify of 2026-12-01 counted 3 in the instant before it)
    Files.writeString(agent,
        "#!/usr/bin/env bash\nsleep 0.5\nls \"$(dirname \"$ORCHESTRATE_WORKSPACE\")\" | grep -vc '^+' >> "
            + tmp.resolve("counts.txt") + "\necho $ORCHESTRATE_ITEM_ID > item-$ORCHESTRATE_ITEM_ID.txt\n");
    StringBuilder backlog = new StringBuilder("schema_version: 1\nitems:\n");
    for (int i = 1; i <= 5; i++) {
      backlog.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    repo.write("backlog.yaml", backlog.toString());
    repo.write("orchestrate.yaml", "agent: {command: [\"bash\", \"" + agent + "\"]}\n"
        + "execution: {workspace: worktree, merge: none}\n"
        + "retention: {worktrees: {max_rows: 2}}\n"
        + "pipelines: {one: {phases: [{name: only, instructions: go}]}}\ndefault_pipeline: one\n");
    repo.commitAll("backlog");
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    List<Integer> counts = Files.readAllLines(tmp.resolve("counts.txt")).stream().map(String::strip)
        .map(Integer::parseInt).toList();
    assertEquals(5, counts.size());
    assertTrue(counts.stream().allMatch(n -> n <= 2), "worktrees on disk while each item ran: " + counts);
    for (int i = 1; i <= 5; i++) {
      assertEquals("I" + i + " only: phase complete", repo.subjects("orchestrate/I" + i).get(0),
          "every branch stays for its pull request");
    }
  }

  @Test
  void destructive_runs_alone_keeps_destructive_phases_one_at_a_time_under_worktrees() throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Path running = tmp.resolve("running");
    Files.createDirectories(running);
    Path agent = tmp.resolve("alone.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\ntouch " + running + "/$ORCHESTRATE_ITEM_ID\nsleep 1\n"
        + "ls " + running + " | wc -l >> " + tmp.resolve("together.txt") + "\nrm " + running
        + "/$ORCHESTRATE_ITEM_ID\n");
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n  - {id: A, title: a}\n  - {id: B, title: b}\n"
        + "  - {id: C, title: c}\n");
    repo.write("orchestrate.yaml", "agent: {command: [\"bash\", \"" + agent + "\"]}\n"
        + "execution: {workspace: worktree, destructive_runs_alone: true, max_wip: 3, max_concurrent: 3}\n"
        + "pipelines: {one: {phases: [{name: only, instructions: go, destructive: true}]}}\ndefault_pipeline: one\n");
    repo.commitAll("backlog");
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(List.of("1", "1", "1"), Files.readAllLines(tmp.resolve("together.txt")).stream()
        .map(String::strip).toList(), "each destructive phase ran alone");
  }

  @Test
  void run_refuses_a_backlog_outside_git_before_taking_the_lock() throws Exception {
    Path plain = tmp.resolve("plain");
    Files.createDirectories(plain);
    Files.writeString(plain.resolve("backlog.yaml"), "schema_version: 1\nitems:\n  - id: A\n    title: A\n");
    Files.writeString(plain.resolve("orchestrate.yaml"), """
        agent: {command: ["true"]}
        execution: {workspace: worktree}
        """);
    Path plainState = plain.resolve(".orchestrate");
    CliRunner.Result r = CliRunner.run(Map.of(), "--state", plainState.toString(), "--config",
        plain.resolve("orchestrate.yaml").toString(), "run", plain.resolve("backlog.yaml").toString());
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("orchestrate: error: execution.workspace is worktree but the backlog's directory"),
        r.err());
    assertTrue(r.err().contains("git init"), r.err());
    assertFalse(Files.exists(plainState), "a refused run creates nothing");
  }

  @Test
  void shared_workspace_runs_agents_in_the_backlog_directory_without_ORCHESTRATE_WORKSPACE() throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Path agent = tmp.resolve("env.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\necho \"${ORCHESTRATE_WORKSPACE-unset} $PWD\" > "
        + tmp.resolve("seen.txt") + "\n");
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n  - id: A\n    title: A\n");
    repo.write("orchestrate.yaml", "agent: {command: [\"bash\", \"" + agent + "\"]}\n"
        + "pipelines: {one: {phases: [{name: only, instructions: go}]}}\ndefault_pipeline: one\n");
    assertEquals(0, cli("run", repo.dir.resolve("backlog.yaml").toString()).exitCode());
    String[] seen = Files.readString(tmp.resolve("seen.txt")).strip().split(" ", 2);
    assertEquals("unset", seen[0]);
    assertEquals(repo.dir.toRealPath(), Path.of(seen[1]).toRealPath());
    assertNull(JSON.readTree(cli("status", "--json").out()).at("/items/0/workspace").textValue());
  }
}
