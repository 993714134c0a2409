package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Verified work (issue 29) end to end: the real launcher on a small real project in a real git
 * repository, agents as scripts that read their prompt and act on it, gates and set-up as real
 * commands, the state read back from the SQLite file. Each test says which promise of
 * docs/verification.md it keeps.
 */
class VerifiedWorkIT {
  @TempDir
  Path dir;

  private GitRepo repo;
  private Path marks;

  @BeforeEach
  void setUp() throws IOException {
    repo = GitRepo.init(dir.resolve("repo"));
    marks = Files.createDirectories(dir.resolve("marks"));
  }

  // ---------------------------------------------------------------- the project and its agent

  /** A shell test suite: test.sh runs tests/check_*.sh and names each that fails. */
  private void shellProject() {
    repo.write("calc.sh", """
        add() { echo $(($1 + $2)); }
        mul() { echo $(($1 * $2)); }
        """);
    repo.write("tests/check_add.sh", ". ./calc.sh; [ \"$(add 2 3)\" = 5 ]\n");
    repo.write("tests/check_mul.sh", ". ./calc.sh; [ \"$(mul 2 3)\" = 6 ]\n");
    repo.write("test.sh", """
        #!/bin/sh
        fail=0
        for t in tests/check_*.sh; do
          name=$(basename "$t" .sh)
          if sh "$t" >/dev/null 2>&1; then echo "ok $name"; else echo "FAIL $name"; fail=1; fi
        done
        exit $fail
        """);
    try {
      Files.setPosixFilePermissions(repo.dir.resolve("test.sh"),
          java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    repo.commitAll("a calculator and its tests");
  }

  /**
   * Writes the agent script (outside the repository; {@code $MARKS} is where it leaves evidence and
   * its prompts, as {@code prompt-<phase>-<attempt>.md}) and the config, and commits the backlog.
   */
  private void project(String agent, String configRest, String backlog) throws IOException {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\nset -u\n"
        + "cp \"$ORCHESTRATE_PROMPT_FILE\" \"$MARKS/prompt-$ORCHESTRATE_PHASE-$ORCHESTRATE_ATTEMPT.md\"\n"
        + "echo \"$ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT\" >> \"$MARKS/agent-runs\"\n" + agent);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
          timeout: 60s
          kill_grace: 1s
        default_pipeline: p
        """.formatted(script, marks) + configRest);
    repo.write("backlog.yaml", backlog);
    repo.commitAll("orchestrate project");
  }

  private static final String ONE_ITEM = "items:\n  - {id: A, title: add subtraction}\n";

  private Launcher.Result run() throws Exception {
    return Launcher.run(repo.dir, "run", "--no-live");
  }

  /** The one item's status. */
  private String itemStatus() {
    return Stored.items(state()).get(0).status().key();
  }

  private Path state() {
    return repo.dir.resolve(".orchestrate");
  }

  /** Each row of {@code query} on the state database, its columns joined by {@code |} (NULL as -). */
  private List<String> rows(String query) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + state().resolve("state.db"));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      List<String> out = new ArrayList<>();
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          String v = rs.getString(i);
          row.add(v == null ? "-" : v);
        }
        out.add(String.join("|", row));
      }
      return out;
    }
  }

  /** The job directory of job {@code jobNumber} of the run (run1-0001-...). */
  private Path jobDir(String prefix) throws IOException {
    try (Stream<Path> jobs = Files.list(state().resolve("jobs"))) {
      List<Path> found = jobs.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
      assertEquals(1, found.size(), "job directories starting " + prefix + ": " + found);
      return found.get(0);
    }
  }

  private String mark(String name) throws IOException {
    Path p = marks.resolve(name);
    return Files.exists(p) ? Files.readString(p) : "";
  }

  private String statusJson(String id) throws Exception {
    Launcher.Result r = Launcher.run(repo.dir, "status", id, "--json");
    assertEquals(0, r.exitCode(), r.err());
    return r.out();
  }

  /** Every commit reachable from any ref, with its patch. */
  private String allHistory() {
    return repo.git("log", "--all", "-p", "--full-history", "--format=commit %H %s");
  }

  // ---------------------------------------------------------------- 1. a red gate, fed back

  @Test
  void a_change_that_breaks_a_test_is_fixed_on_the_retry_that_reads_the_gate_output() throws Exception {
    shellProject();
    // Every attempt adds sub() and its test. Attempt 1 also breaks mul(); any later attempt breaks it
    // again unless its prompt names the failing test as test.sh printed it.
    project("""
        echo 'sub() { echo $(($1 - $2)); }' >> calc.sh
        echo '. ./calc.sh; [ "$(sub 5 3)" = 2 ]' > tests/check_sub.sh
        if [ "$ORCHESTRATE_ATTEMPT" = 1 ] || ! grep -q 'FAIL check_mul' "$ORCHESTRATE_PROMPT_FILE"; then
          sed -i 's/\\$1 \\* \\$2/$1 + $2/' calc.sh
        fi
        echo "added sub"
        """,
        """
            execution: {workspace: worktree, max_retries: 2}
            pipelines:
              p:
                phases:
                  - {name: build, instructions: "Add a sub function to calc.sh, with a test.", verify: [{name: tests, run: "./test.sh"}]}
            """,
        ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("done", itemStatus());
    assertEquals(List.of("1|failed|verify_failed", "2|completed|succeeded"),
        rows("SELECT id, state, outcome FROM jobs ORDER BY id"), "exactly two attempts, the first refuted by its gate");
    assertEquals(List.of("1|1|gate|tests|1|failed|gate-tests.log", "2|1|gate|tests|0|passed|gate-tests.log"),
        rows("SELECT job_id, seq, kind, name, exit_code, ending, log_file FROM job_checks ORDER BY job_id, seq"));
    String gateLog = Files.readString(jobDir("run1-0001-A-build-1").resolve("gate-tests.log"));
    assertTrue(gateLog.contains("FAIL check_mul") && gateLog.contains("ok check_sub"), gateLog);

    String second = mark("prompt-build-2.md");
    String failure = second.substring(second.indexOf("## Previous Failure"), second.indexOf("## Task"));
    assertTrue(failure.contains("gate 'tests' failed (exit 1)"), failure);
    assertTrue(failure.contains("ok check_add\nFAIL check_mul\nok check_sub"), "the gate's output, quoted: " + failure);
    assertFalse(mark("prompt-build-1.md").contains("check_mul"), "only the gate's output names the test");

    // main never held a red commit: the suite is green on every commit of main, and the broken
    // mul() is on no commit of any branch
    for (String commit : repo.git("rev-list", "main").lines().toList()) {
      Path tree = Files.createDirectories(dir.resolve("tree-" + commit));
      Process tar = new ProcessBuilder("sh", "-c", "git archive " + commit + " | tar -x -C " + tree)
          .directory(repo.dir.toFile()).redirectErrorStream(true).start();
      assertEquals(0, tar.waitFor());
      if (Files.exists(tree.resolve("test.sh"))) {
        Process suite = new ProcessBuilder("./test.sh").directory(tree.toFile()).redirectErrorStream(true).start();
        String out = new String(suite.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, suite.waitFor(), "commit " + commit + " of main is red:\n" + out);
      }
    }
    assertFalse(allHistory().contains("+mul() { echo $(($1 + $2)); }"), "the red change was never committed");
    assertEquals(List.of("A build: added sub", "orchestrate project", "a calculator and its tests", "init"),
        repo.subjects("main"));
    assertEquals("", repo.git("status", "--porcelain"));
  }

  // ---------------------------------------------------------------- 2. changes: required

  @Test
  void a_phase_that_changes_nothing_fails_as_no_changes_and_the_retry_that_changes_something_succeeds()
      throws Exception {
    project("""
        if [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then echo "all done, trust me"; exit 0; fi
        grep -q 'This phase requires changes' "$ORCHESTRATE_PROMPT_FILE" || exit 1
        echo 'sub() { echo $(($1 - $2)); }' > sub.sh
        echo "wrote sub.sh"
        """, """
        execution: {workspace: worktree, max_retries: 1}
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Write sub.sh.", changes: required}
        """, ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("done", itemStatus());
    assertEquals(List.of("1|failed|no_changes", "2|completed|succeeded"),
        rows("SELECT id, state, outcome FROM jobs ORDER BY id"));
    String second = mark("prompt-build-2.md");
    String failure = second.substring(second.indexOf("## Previous Failure"), second.indexOf("## Task"));
    assertTrue(failure.contains("no file was changed") && failure.contains("changes: required"), failure);
    assertEquals(List.of("A build: wrote sub.sh", "orchestrate project", "init"), repo.subjects("main"));
  }

  // ---------------------------------------------------------------- 3. workspace.copy

  @ParameterizedTest(name = "ignored={0}, the agent {1}")
  @CsvSource({"true, stages", "true, commits", "false, stages", "false, commits"})
  void a_copied_env_is_in_the_worktree_for_the_agent_and_in_no_commit_of_any_branch(boolean ignored, String how)
      throws Exception {
    if (ignored) {
      repo.write(".gitignore", "build/\n.env\n");
      repo.commitAll("ignore");
    }
    String stage = how.equals("stages") ? "git add -f .env\n"
        : "git add -f .env && git -c user.name=agent -c user.email=a@b commit -q -m 'agent: my work' || exit 9\n";
    // design succeeds; build's first attempt fails (its worktree is reset), its second succeeds
    project(
        """
            [ "$(cat .env)" = 'API_KEY=sk-e2e-0123456789' ] && echo "$ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> "$MARKS/env-seen"
            echo "$ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> work.txt
            """
            + stage + """
                [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ] && exit 1
                echo "did $ORCHESTRATE_PHASE"
                """,
        """
            execution: {workspace: worktree, max_retries: 1, merge: %s}
            workspace:
              copy: [.env]
            pipelines:
              p:
                phases:
                  - {name: design, instructions: "Design."}
                  - {name: build, instructions: "Build."}
            """.formatted(how.equals("stages") ? "rebase" : "none"), ONE_ITEM);
    Files.writeString(repo.dir.resolve(".env"), "API_KEY=sk-e2e-0123456789\n");

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("done", itemStatus());
    assertEquals("design 1\nbuild 1\nbuild 2\n", mark("env-seen"), "every attempt found the .env copied in");
    String history = allHistory();
    assertFalse(history.contains("sk-e2e-0123456789"), history);
    assertFalse(history.contains("b/.env"), history);
    String branch = how.equals("stages") ? "main" : "orchestrate/A";
    assertEquals(List.of("A build: did build", "A design: did design"), repo.subjects(branch).subList(0, 2));
    assertFalse(repo.git("ls-tree", "-r", "--name-only", branch).lines().anyMatch(".env"::equals));
    assertEquals("API_KEY=sk-e2e-0123456789\n", Files.readString(repo.dir.resolve(".env")),
        "the user's .env is as it was");
  }

  @Test
  void an_env_the_agent_committed_in_an_attempt_that_failed_for_good_is_left_on_no_branch() throws Exception {
    repo.write(".gitignore", "build/\n.env\n");
    repo.commitAll("ignore");
    project("""
        echo work > work.txt
        git add -f .env work.txt && git -c user.name=agent -c user.email=a@b commit -q -m 'agent: my work'
        exit 1
        """, """
        execution: {workspace: worktree, max_retries: 0}
        workspace:
          copy: [.env]
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """, ONE_ITEM);
    Files.writeString(repo.dir.resolve(".env"), "API_KEY=sk-e2e-0123456789\n");

    Launcher.Result r = run();

    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertEquals("blocked", itemStatus());
    String history = allHistory();
    assertFalse(history.contains("sk-e2e-0123456789"), history);
    assertFalse(history.contains("agent: my work"), "the agent's own commit is not on orchestrate/A: " + history);
    // the attempt's files are still in the kept worktree for a person to look at
    assertTrue(Files.exists(state().resolve("worktrees/A/work.txt")));
  }

  @Test
  void a_copy_path_git_tracks_refuses_the_run_at_start_naming_the_path() throws Exception {
    repo.write("config/local.yml", "db: local\n");
    project("echo never > ran.txt\n", """
        execution: {workspace: worktree}
        workspace:
          copy: [config/local.yml]
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """, ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(2, r.exitCode(), r.out() + r.err()); // a usage error, found before the lock
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
    assertTrue(r.err().contains("config/local.yml") && r.err().contains("tracked"), r.err());
    assertEquals("", mark("agent-runs"), "no agent ran");
  }

  @Test
  void a_copy_path_whose_directory_the_agent_replaced_with_a_link_copies_nothing_through_it() throws Exception {
    Path victim = Files.createDirectories(dir.resolve("victim"));
    Files.writeString(victim.resolve("precious.txt"), "keep me\n");
    repo.write(".gitignore", "build/\nconf\n"); // an ignored link survives the reset before the retry
    repo.commitAll("ignore");
    repo.write("conf/local.yml", "db: secret-local\n");
    project("""
        cat conf/local.yml >> "$MARKS/seen"
        rm -rf conf && ln -s '%s' conf
        exit 1
        """.formatted(victim), """
        execution: {workspace: worktree, max_retries: 1}
        workspace:
          copy: [conf/local.yml]
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """, ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertEquals("db: secret-local\n", mark("seen"), "the first attempt had the file");
    try (Stream<Path> files = Files.list(victim)) {
      assertEquals(List.of(victim.resolve("precious.txt")), files.toList(), "nothing was copied through the link");
    }
    assertEquals("keep me\n", Files.readString(victim.resolve("precious.txt")));
    assertEquals("blocked", itemStatus());
    String status = statusJson("A");
    assertTrue(status.contains("workspace.copy: conf in the worktree") && status.contains("is a link"), status);
    assertEquals("build 1\n", mark("agent-runs"), "the retry never ran over the link");
  }

  // ---------------------------------------------------------------- 4. workspace.setup

  @Test
  void set_up_runs_once_per_new_worktree_before_the_first_agent_and_its_log_is_kept() throws Exception {
    // build's first attempt fails: two phases, three attempts, one set-up
    project("""
        [ -f node_modules/.installed ] || { echo "no set-up before me" >&2; exit 3; }
        echo "$ORCHESTRATE_PHASE" >> work.txt
        [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ] && exit 1
        echo "did $ORCHESTRATE_PHASE"
        """,
        """
            execution: {workspace: worktree, max_retries: 1}
            workspace:
              setup:
                - {name: deps, run: "echo installing; mkdir -p node_modules && touch node_modules/.installed && echo run >> '%s/setup-runs'", timeout: 30s}
            pipelines:
              p:
                phases:
                  - {name: design, instructions: "Design."}
                  - {name: build, instructions: "Build."}
            """
            .formatted(marks),
        "items:\n  - {id: A, title: a}\n");
    repo.write(".gitignore", "build/\nnode_modules/\n");
    repo.commitAll("ignore node_modules");

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("done", itemStatus());
    assertEquals("run\n", mark("setup-runs"), "exactly one set-up over two phases and three attempts");
    assertEquals(List.of("1|1|setup|deps|0|passed|setup-deps.log"),
        rows("SELECT job_id, seq, kind, name, exit_code, ending, log_file FROM job_checks ORDER BY job_id, seq"));
    assertEquals("installing\n", Files.readString(jobDir("run1-0001-A-design-1").resolve("setup-deps.log")));
    assertFalse(repo.git("ls-tree", "-r", "--name-only", "main").contains("node_modules"));
  }

  @Test
  void a_failing_set_up_blocks_the_item_once_with_its_output_and_runs_again_after_unblock() throws Exception {
    project("echo done > work.txt\necho did it\n",
        """
            execution: {workspace: worktree, max_retries: 3}
            workspace:
              setup:
                - {name: deps, run: "echo run >> '%1$s/setup-runs'; echo resolving packages; [ -f '%1$s/registry-fixed' ] || { echo 'E404 left-pad not found' >&2; exit 3; }"}
            pipelines:
              p:
                phases:
                  - {name: build, instructions: "Build."}
            """
            .formatted(marks),
        ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertEquals("blocked", itemStatus());
    assertEquals("", mark("agent-runs"), "the agent never ran");
    assertEquals("run\n", mark("setup-runs"), "not retried in a loop");
    assertEquals(List.of("1|failed|blocked"), rows("SELECT id, state, outcome FROM jobs ORDER BY id"));
    assertEquals(List.of("1|setup|deps|3|failed|setup-deps.log"),
        rows("SELECT job_id, kind, name, exit_code, ending, log_file FROM job_checks"));
    String status = statusJson("A");
    assertTrue(status.contains("workspace.setup 'deps' failed (exit 3)"), status);
    assertTrue(status.contains("resolving packages\\nE404 left-pad not found"), status);
    Launcher.Result text = Launcher.run(repo.dir, "status", "A");
    assertTrue(text.out().contains("workspace.setup 'deps' failed"), text.out());
    assertTrue(Files.readString(jobDir("run1-0001-A-build-1").resolve("setup-deps.log"))
        .contains("E404 left-pad not found"));

    Files.writeString(marks.resolve("registry-fixed"), "");
    assertEquals(0, Launcher.run(repo.dir, "unblock", "A", "--notes", "registry fixed").exitCode());
    Launcher.Result again = run();

    assertEquals(0, again.exitCode(), again.out() + again.err());
    assertEquals("run\nrun\n", mark("setup-runs"), "the set-up ran again after unblock");
    assertEquals("build 1\n", mark("agent-runs"));
    assertEquals("done", itemStatus());
  }

  // ---------------------------------------------------------------- 5. ignored files

  @Test
  void ignored_files_the_agent_forced_into_the_index_are_not_committed_but_an_ignored_file_the_branch_tracks_is()
      throws Exception {
    repo.write("build/keep.txt", "v1\n");
    repo.git("add", "-f", "build/keep.txt");
    repo.commitAll("a build file tracked on purpose");
    project("""
        mkdir -p build && echo binary > build/out.bin && echo v2 > build/keep.txt && echo code > src.txt
        git add -f build/out.bin
        [ "$ORCHESTRATE_PHASE" = build ] && { echo more > build/late.bin; git add -f build/late.bin;
          git -c user.name=agent -c user.email=a@b commit -q -m 'agent: with build output'; }
        echo "did $ORCHESTRATE_PHASE"
        """, """
        execution: {workspace: worktree}
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """, ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    List<String> tree = repo.git("ls-tree", "-r", "--name-only", "main").lines().toList();
    assertTrue(tree.contains("src.txt") && tree.contains("build/keep.txt"), tree.toString());
    assertFalse(tree.contains("build/out.bin") || tree.contains("build/late.bin"), tree.toString());
    assertEquals("v2", repo.git("show", "main:build/keep.txt"));
    assertFalse(allHistory().contains("build/out.bin"), "in no commit of any branch");
  }

  // ---------------------------------------------------------------- 6. a gate that hangs

  @Test
  void a_gate_that_hangs_is_stopped_at_its_timeout_with_every_process_it_started() throws Exception {
    project("echo x >> work.txt\necho did it\n",
        """
            execution: {workspace: worktree, max_retries: 0}
            pipelines:
              p:
                phases:
                  - {name: build, instructions: "Build.", verify: [{name: hang, run: "echo hanging; sleep 987.654 & sleep 987.655; wait", timeout: 2s}]}
            """,
        ONE_ITEM);
    long started = System.nanoTime();

    Launcher.Result r = run();

    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertTrue(seconds < 60, "the run ended after " + seconds + " s");
    assertEquals(List.of("1|failed|verify_failed"), rows("SELECT id, state, outcome FROM jobs"));
    assertEquals(List.of("gate|hang|-|timed_out"), rows("SELECT kind, name, exit_code, ending FROM job_checks"));
    assertEquals(List.of(), leftovers("987.65"), "no process of the gate is left");
    assertTrue(statusJson("A").contains("gate 'hang' timed out"));
  }

  /** Command lines of the processes still running that contain {@code marker}. */
  private static List<String> leftovers(String marker) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        if (!p.getFileName().toString().matches("\\d+")) {
          continue;
        }
        try {
          String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
          if (cmd.contains(marker) && Processes.running(Long.parseLong(p.getFileName().toString()))) {
            found.add(p.getFileName() + ": " + cmd);
          }
        } catch (IOException gone) {
          // ended while we looked
        }
      }
    }
    return found;
  }

  // ---------------------------------------------------------------- 7. resume (a fake claude)

  /**
   * A stand-in for Claude Code: records its argv, stdin and the files it found; prints stream-json
   * with a session id (its own, or the one it resumes). Call 1 leaves a half-done edit; later calls
   * finish it only if the first one's file is still there. With {@code forget}, a resume is refused
   * as the real CLI does for an unknown session.
   */
  private void fakeClaude(boolean forget) throws IOException {
    fakeClaude(forget, false, 1);
  }

  /** As above; with {@code crashSecond}, call 2 is killed (exit 137) after an edit of its own. */
  private void fakeClaude(boolean forget, boolean crashSecond, int retries) throws IOException {
    Path script = dir.resolve("claude.sh");
    Files.writeString(script, """
        #!/usr/bin/env bash
        n=$(( $(cat "$MARKS/calls" 2>/dev/null || echo 0) + 1 )); echo $n > "$MARKS/calls"
        printf '%%s\\n' "$@" > "$MARKS/argv-$n"
        cat > "$MARKS/stdin-$n"
        ls > "$MARKS/files-$n"
        sid="sess-$n"
        for ((i=1;i<=$#;i++)); do if [ "${!i}" = --resume ]; then j=$((i+1)); sid="${!j}"; fi; done
        if [ "$sid" != "sess-$n" ] && [ %s = true ]; then
          echo "No conversation found with session ID: $sid" >&2; exit 1
        fi
        echo '{"type":"system","subtype":"init","session_id":"'$sid'"}'
        if [ $n = 1 ]; then echo first > first.txt; echo broken > state.txt
        elif [ $n = 2 ] && [ %s = true ]; then echo second > second.txt; kill -9 $$
        elif [ -f first.txt ]; then echo fixed > state.txt
        else echo first > first.txt; echo fixed > state.txt; fi
        echo '{"type":"result","subtype":"success","is_error":false,"result":"did it","session_id":"'$sid'"}'
        """.formatted(forget, crashSecond));
    repo.write("orchestrate.yaml", """
        agent:
          preset: claude
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
          resume: true
        execution: {workspace: worktree, max_retries: %d}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build.", verify: [{name: state, run: "grep -q fixed state.txt"}]}
        """.formatted(script, marks, retries));
    repo.write("backlog.yaml", ONE_ITEM);
    repo.commitAll("orchestrate project");
  }

  @Test
  void a_retry_after_verify_failed_resumes_the_session_in_the_worktree_as_the_first_attempt_left_it()
      throws Exception {
    fakeClaude(false);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("2\n", mark("calls"));
    assertFalse(mark("argv-1").contains("--resume"));
    assertTrue(mark("argv-2").endsWith("--resume\nsess-1\n"), mark("argv-2"));
    assertTrue(
        mark("stdin-2").startsWith("# orchestrate: A / build, attempt 2 of 2\n\nThis continues your last attempt"),
        mark("stdin-2"));
    assertFalse(mark("stdin-2").contains("## Task"), "the short prompt: " + mark("stdin-2"));
    assertTrue(mark("stdin-2").contains("gate 'state' failed (exit 1)"), mark("stdin-2"));
    assertEquals(List.of("1|verify_failed|sess-1|fresh", "2|succeeded|sess-1|resumed"),
        rows("SELECT id, outcome, session_id, session_start FROM jobs ORDER BY id"));
    assertEquals("first", repo.git("show", "main:first.txt"), "the first attempt's edit was kept");
    assertEquals("fixed", repo.git("show", "main:state.txt"));
  }

  @Test
  void a_session_the_cli_no_longer_knows_falls_back_to_a_fresh_attempt_with_the_full_prompt() throws Exception {
    fakeClaude(true);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("3\n", mark("calls"), "the refused resume, then a fresh start in the same job");
    assertTrue(mark("argv-2").contains("--resume\nsess-1"), mark("argv-2"));
    assertFalse(mark("argv-3").contains("--resume"), mark("argv-3"));
    assertTrue(mark("stdin-3").contains("## Task: build") && mark("stdin-3").contains("## Previous Failure"),
        mark("stdin-3"));
    assertEquals(List.of("1|verify_failed|fresh", "2|succeeded|fresh_after_failed_resume"),
        rows("SELECT id, outcome, session_start FROM jobs ORDER BY id"));
    Path job2 = jobDir("run1-0002-A-build-2");
    assertTrue(Files.readString(job2.resolve("output-resume.log")).contains("No conversation found"));
    assertTrue(Files.exists(job2.resolve("prompt-resume.md")));
  }

  @Test
  void after_a_resumed_attempt_crashes_the_next_starts_fresh_with_the_full_prompt_in_a_reset_worktree()
      throws Exception {
    fakeClaude(false, true, 2);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("3\n", mark("calls"));
    assertTrue(mark("argv-2").endsWith("--resume\nsess-1\n"), mark("argv-2"));
    assertFalse(mark("argv-3").contains("--resume"), mark("argv-3"));
    assertTrue(mark("stdin-3").contains("## Task: build"), mark("stdin-3"));
    assertEquals(List.of("1|verify_failed|0|fresh", "2|failed|137|resumed", "3|succeeded|0|fresh"),
        rows("SELECT id, outcome, exit_code, session_start FROM jobs ORDER BY id"));
    // the crashed attempt's edits (and the first attempt's) were discarded before the fresh start
    assertTrue(mark("files-2").contains("first.txt"), "the resumed attempt had the first one's files");
    assertFalse(mark("files-3").contains("first.txt") || mark("files-3").contains("second.txt"), mark("files-3"));
    assertFalse(repo.git("ls-tree", "-r", "--name-only", "main").contains("second.txt"));
  }

  // ---------------------------------------------------------------- gates without worktrees

  @Test
  void gates_run_in_the_backlogs_directory_in_the_shared_workspace() throws Exception {
    project("echo \"$ORCHESTRATE_ATTEMPT\" >> attempts.txt\necho did it\n",
        """
            execution: {max_retries: 1}
            pipelines:
              p:
                phases:
                  - {name: build, instructions: "Build.", verify: [{name: two, run: "[ $(wc -l < attempts.txt) -ge 2 ] || { echo 'only one attempt so far'; exit 4; }"}]}
            """,
        ONE_ITEM);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("done", itemStatus());
    assertEquals(List.of("1|failed|verify_failed", "2|completed|succeeded"),
        rows("SELECT id, state, outcome FROM jobs ORDER BY id"));
    assertEquals(List.of("1|two|4|failed", "2|two|0|passed"),
        rows("SELECT job_id, name, exit_code, ending FROM job_checks ORDER BY job_id"));
    assertTrue(mark("prompt-build-2.md").contains("only one attempt so far"));
  }
}
