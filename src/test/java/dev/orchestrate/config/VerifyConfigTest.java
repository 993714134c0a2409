package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config of verified work (issue 29): gates, changes, agent.resume, and the workspace section. */
class VerifyConfigTest {
  @TempDir
  Path dir;
  private TestFiles files;

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private Config load(String yaml) {
    return ConfigLoader.load(files.write("orchestrate.yaml", yaml));
  }

  private List<String> problemsOf(String yaml) {
    Path file = files.write("orchestrate.yaml", yaml);
    return problems(() -> ConfigLoader.load(file));
  }

  private static final String WORKTREE = "execution: {workspace: worktree}\n";

  // --- verify ---

  @Test
  void a_string_run_goes_through_the_shell_a_list_is_the_argv_and_the_timeout_defaults_to_ten_minutes() {
    Config config = load("""
        pipelines:
          feature:
            verify:
              - {name: tests, run: "npm test -- --ci", timeout: 90s}
              - {name: lint, run: [ruff, check, "src dir"]}
            phases:
              - {name: build, instructions: Build it.}
        """);
    Pipeline p = config.pipeline("feature");
    assertEquals(List.of(
        new ProjectCommand("tests", List.of("/bin/sh", "-c", "npm test -- --ci"), "npm test -- --ci",
            Duration.ofSeconds(90)),
        new ProjectCommand("lint", List.of("ruff", "check", "src dir"), "ruff check src dir",
            Duration.ofMinutes(10))),
        p.verify());
    assertTrue(p.verify().get(0).viaShell());
    assertFalse(p.verify().get(1).viaShell());
    assertNull(p.phases().get(0).verify());
    assertEquals(p.verify(), p.verifyFor(p.phases().get(0)));
    assertEquals(PhaseDef.Changes.OPTIONAL, p.phases().get(0).changes());
  }

  @Test
  void a_phases_own_verify_replaces_the_pipelines_and_an_empty_one_turns_gates_off() {
    Pipeline p = load("""
        pipelines:
          feature:
            verify: [{name: tests, run: make test}]
            pre_phases:
              - {name: scope, instructions: Scope it.}
            phases:
              - {name: build, instructions: Build it., verify: [{name: unit, run: make unit}]}
              - {name: docs, instructions: Write docs., verify: []}
              - {name: review, instructions: Review it.}
        """).pipeline("feature");
    assertEquals(List.of("unit"), names(p.verifyFor(p.phases().get(0))));
    assertEquals(List.of(), p.verifyFor(p.phases().get(1)));
    assertEquals(List.of(), p.phases().get(1).verify());
    assertEquals(List.of("tests"), names(p.verifyFor(p.phases().get(2))));
    assertEquals(List.of(), p.verifyFor(p.prePhases().get(0)), "a pre-phase does not inherit the pipeline's gates");
  }

  @Test
  void a_pre_phase_may_have_gates_of_its_own() {
    Pipeline p = load("""
        pipelines:
          feature:
            verify: [{name: tests, run: make test}]
            pre_phases:
              - {name: scope, instructions: Scope it., verify: [{name: plan-exists, run: test -f PLAN.md}]}
            phases:
              - {name: build, instructions: Build it.}
        """).pipeline("feature");
    assertEquals(List.of("plan-exists"), names(p.verifyFor(p.prePhases().get(0))));
  }

  /**
   * verify_protected names files and directories; a wildcard is refused, saying what to give: the
   * check compares the protected files by their bytes, listed by path.
   */
  @Test
  void verify_protected_takes_files_and_directories_and_refuses_a_wildcard() {
    assertEquals(List.of("gates/", "test/fixtures/expected.txt"), load("""
        pipelines:
          feature:
            verify_protected: [gates/, test/fixtures/expected.txt]
            phases:
              - {name: build, instructions: Build it.}
        """).pipeline("feature").verifyProtected());
    List<String> problems = problemsOf("""
        pipelines:
          feature:
            verify_protected: [gates/, "tests/*.snap", "a?b", "x[1]"]
            phases:
              - {name: build, instructions: Build it.}
        """);
    assertEquals(3, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("bad path 'tests/*.snap' in verify_protected of pipeline 'feature'")
        && problems.get(0).contains("no wildcards"), problems.toString());
  }

  @Test
  void a_command_without_name_or_run_is_an_error_that_says_how_to_write_it() {
    assertEquals(List.of(
        "4:9: verify of pipeline 'feature'[0] has no name (it names the command's log and what the agent is told)",
        "5:9: verify of pipeline 'feature'[1] has no run: give the command, e.g. run: \"npm test\""),
        problemsOf("""
            pipelines:
              feature:
                verify:
                  - {run: make test}
                  - {name: lint}
                phases:
                  - {name: build, instructions: Build it.}
            """));
  }

  @Test
  void bad_and_duplicate_names_empty_runs_unknown_keys_and_bad_timeouts_are_errors_at_their_place() {
    List<String> problems = problemsOf("""
        pipelines:
          feature:
            phases:
              - name: build
                instructions: Build it.
                verify:
                  - {name: "bad name", run: x}
                  - {name: tests, run: make test}
                  - {name: tests, run: make check}
                  - {name: empty, run: []}
                  - {name: blank, run: "  "}
                  - {name: slow, run: x, timeout: forever}
                  - {name: typo, run: x, timout: 5m}
        """);
    assertEquals(List.of(
        "7:20: bad command name 'bad name' in verify of phase 'build' of pipeline 'feature'[0]: "
            + dev.orchestrate.yaml.Names.NAME_RULE,
        "9:20: duplicate command 'tests' in verify of phase 'build' of pipeline 'feature' (first at line 8)",
        "10:32: run in verify of phase 'build' of pipeline 'feature'[3] is empty: give the program and its arguments",
        "11:32: run in verify of phase 'build' of pipeline 'feature'[4] must be a command like \"npm test\", got '  '",
        "12:43: timeout in verify of phase 'build' of pipeline 'feature'[5]: bad duration 'forever': use a number with "
            + "ms, s, m, h or d, e.g. 90s, 30m, 2h, 7d",
        "13:34: unknown key 'timout' in verify of phase 'build' of pipeline 'feature'[6]; did you mean 'timeout'?"),
        problems);
  }

  @Test
  void verify_must_be_a_list_of_maps() {
    assertEquals(List.of("3:13: verify of pipeline 'feature' must be a list of commands, each like {name: tests, "
        + "run: \"npm test\", timeout: 10m}, got 'make test'"), problemsOf("""
            pipelines:
              feature:
                verify: make test
                phases:
                  - {name: build, instructions: Build it.}
            """));
    assertEquals(List.of("3:14: verify of pipeline 'feature'[0] must be a map like {name: tests, run: \"npm test\", "
        + "timeout: 10m}, got 'make test'"), problemsOf("""
            pipelines:
              feature:
                verify: [make test]
                phases:
                  - {name: build, instructions: Build it.}
            """));
  }

  // --- changes ---

  @Test
  void changes_required_is_read_in_worktree_mode() {
    Pipeline p = load(WORKTREE + """
        pipelines:
          feature:
            phases:
              - {name: build, instructions: Build it., changes: required}
              - {name: review, instructions: Review it., changes: optional}
        """).pipeline("feature");
    assertEquals(PhaseDef.Changes.REQUIRED, p.phases().get(0).changes());
    assertEquals(PhaseDef.Changes.OPTIONAL, p.phases().get(1).changes());
  }

  @Test
  void changes_required_without_worktrees_is_refused_at_the_phase_with_the_remedy() {
    assertEquals(List.of("4:57: phase 'build' of pipeline 'feature' has changes: required, which needs "
        + "execution.workspace: worktree (orchestrate sees an attempt's changes only in its own worktree)"),
        problemsOf("""
            pipelines:
              feature:
                phases:
                  - {name: build, instructions: Build it., changes: required}
            """));
  }

  @Test
  void changes_must_be_required_or_optional() {
    assertEquals(List.of("5:57: changes in phase 'build' of pipeline 'feature' must be required or optional, "
        + "got 'always'"), problemsOf(WORKTREE + """
            pipelines:
              feature:
                phases:
                  - {name: build, instructions: Build it., changes: always}
            """));
  }

  // --- agent.resume ---

  @Test
  void agent_resume_is_off_by_default_and_read_on_the_agent_and_on_profiles() {
    Config off = load("agent: {preset: claude}\n");
    assertFalse(off.agent().resume());
    assertFalse(off.agent().resumes());

    Config on = load("""
        agent: {preset: claude, resume: true}
        agents:
          codex: {preset: codex, resume: true}
          plain: {command: [bash, agent.sh], resume: true}
          quiet: {preset: opencode}
        """);
    assertTrue(on.agent().resume());
    assertTrue(on.agent().resumes());
    assertTrue(on.profiles().get("codex").resumes());
    assertTrue(on.profiles().get("plain").resume());
    assertFalse(on.profiles().get("plain").resumes(), "a plain command cannot resume");
    assertFalse(on.profiles().get("quiet").resumes());
  }

  @Test
  void agent_resume_must_be_a_boolean() {
    assertEquals(List.of("1:33: agent.resume must be true or false, got 'yes please'"),
        problemsOf("agent: {preset: claude, resume: yes please}\n"));
  }

  // --- workspace ---

  @Test
  void the_workspace_section_reads_setup_and_copy_in_worktree_mode() {
    WorkspaceConfig w = load(WORKTREE + """
        workspace:
          setup:
            - {name: deps, run: npm ci, timeout: 20m}
          copy: [.env, ./config/local.yml, config/../secrets.json]
        """).execution().workspace();
    assertEquals(List.of(new ProjectCommand("deps", List.of("/bin/sh", "-c", "npm ci"), "npm ci",
        Duration.ofMinutes(20))), w.setup());
    assertEquals(List.of(".env", "config/local.yml", "secrets.json"), w.copy());
  }

  @Test
  void an_empty_workspace_section_and_empty_lists_are_accepted() {
    assertEquals(List.of(), load(WORKTREE + "workspace:\n").execution().workspace().copy());
    assertEquals(List.of(), load(WORKTREE + "workspace: {setup: [], copy: []}\n").execution().workspace().copy());
    assertEquals(List.of(), load(WORKTREE + "workspace:\n  copy:\n  setup:\n").execution().workspace().setup());
  }

  @Test
  void copy_paths_that_leave_the_repository_or_enter_git_or_repeat_are_refused_each_at_its_place() {
    List<String> problems = problemsOf(WORKTREE + """
        workspace:
          copy:
            - /etc/passwd
            - ../other/.env
            - config/../../up.txt
            - .git/config
            - ./.git/hooks/pre-commit
            - .
            - .env
            - ./.env
        """);
    assertEquals(List.of(
        "4:7: workspace.copy '/etc/passwd' leaves the repository: give a path relative to the repository's top, "
            + "inside it (like .env or config/local.yml)",
        "5:7: workspace.copy '../other/.env' leaves the repository: give a path relative to the repository's top, "
            + "inside it (like .env or config/local.yml)",
        "6:7: workspace.copy 'config/../../up.txt' leaves the repository: give a path relative to the repository's "
            + "top, inside it (like .env or config/local.yml)",
        "7:7: workspace.copy '.git/config' is inside .git: orchestrate copies only the project's own files",
        "8:7: workspace.copy './.git/hooks/pre-commit' is inside .git: orchestrate copies only the project's own files",
        "9:7: workspace.copy '.' leaves the repository: give a path relative to the repository's top, inside it "
            + "(like .env or config/local.yml)",
        "11:7: workspace.copy names './.env' twice"), problems);
  }

  @Test
  void setup_and_copy_without_worktrees_are_refused_with_the_remedy() {
    assertEquals(List.of("1:1: workspace.setup and workspace.copy prepare each item's own worktree: they need "
        + "execution.workspace: worktree"), problemsOf("""
            workspace:
              copy: [.env]
            """));
    assertEquals(List.of("1:1: workspace.setup and workspace.copy prepare each item's own worktree: they need "
        + "execution.workspace: worktree"), problemsOf("""
            workspace:
              setup: [{name: deps, run: npm ci}]
            """));
  }

  @Test
  void unknown_workspace_keys_and_bad_setup_commands_are_errors() {
    assertEquals(List.of("3:3: unknown key 'copies' in workspace; expected one of: setup, copy",
        "4:11: workspace.setup[0] has no run: give the command, e.g. run: \"npm test\""),
        problemsOf(WORKTREE + """
            workspace:
              copies: [.env]
              setup: [{name: deps}]
            """));
  }

  private static List<String> names(List<ProjectCommand> commands) {
    return commands.stream().map(ProjectCommand::name).toList();
  }
}
