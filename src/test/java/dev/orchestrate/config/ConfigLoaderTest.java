package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.TestFiles;
import dev.orchestrate.yaml.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {
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

  // --- valid files and defaults ---

  @Test
  void loads_the_example_of_the_design_to_the_expected_records() {
    Path file = files.copyResource("orchestrate.yaml");
    files.copyResource("workflows/design.md");

    Config config = ConfigLoader.load(file);

    String workflow = dir.resolve("workflows/design.md").toAbsolutePath().normalize().toString();
    Pipeline feature = new Pipeline("feature",
        List.of(new PhaseDef("scope", "Decide what this item needs; record assumptions.", null, false)),
        List.of(new PhaseDef("design", null, workflow, false),
            new PhaseDef("build", "Implement the design.", null, true),
            new PhaseDef("review", "Review the change.", null, false)));
    Config expected = new Config(Optional.of(file),
        new AgentConfig(List.of("bash", "agents/claude.sh"), Duration.ofMinutes(30),
            AgentConfig.DEFAULT_KILL_GRACE, Map.of(), ResultFallback.EXIT_CODE,
            AgentConfig.DEFAULT_LOG_MAX_BYTES, AgentConfig.DEFAULT_OUTPUT_TAIL_CHARS),
        new ExecutionConfig(1, 1, 2, 2, 100),
        "feature", Map.of("feature", feature), ContextConfig.defaults(), 50, 20_000);
    assertEquals(expected, config);
  }

  @Test
  void reads_every_agent_key() {
    Config config = load("""
        agent:
          command: [python3, -u, agent.py, 3]
          timeout: 1h30m
          kill_grace: 500ms
          env: {MODEL: fast, RETRIES: 3, VERBOSE: true, RATIO: 0.5, EMPTY: ""}
          result_fallback: strict
          log_max_bytes: 5MiB
          output_tail_chars: 100
        """);
    assertEquals(new AgentConfig(List.of("python3", "-u", "agent.py", "3"), Duration.ofMinutes(90),
        Duration.ofMillis(500),
        Map.of("MODEL", "fast", "RETRIES", "3", "VERBOSE", "true", "RATIO", "0.5", "EMPTY", ""),
        ResultFallback.STRICT, 5L * 1024 * 1024, 100), config.agent());
  }

  @Test
  void a_plain_number_of_bytes_is_a_size() {
    assertEquals(1_000_000L, load("agent: {log_max_bytes: 1000000}\n").agent().logMaxBytes());
  }

  @Test
  void missing_sections_take_the_published_defaults() {
    Config config = load("execution: {max_wip: 3}\n");
    Config defaults = Config.defaults();
    assertEquals(Optional.of(dir.resolve("orchestrate.yaml")), config.source());
    assertEquals(AgentConfig.defaults(), config.agent());
    assertEquals(new ExecutionConfig(3, ExecutionConfig.DEFAULT_MAX_CONCURRENT,
        ExecutionConfig.DEFAULT_MAX_RETRIES, ExecutionConfig.DEFAULT_CIRCUIT_BREAKER,
        ExecutionConfig.DEFAULT_PHASE_CAP), config.execution());
    assertEquals(Config.DEFAULT_PIPELINE, config.defaultPipeline());
    assertEquals(defaults.pipelines(), config.pipelines());
    assertEquals(Config.DEFAULT_WINDOW_SIZE, config.context().windowSize());
    assertEquals(Config.DEFAULT_KEEP_RECENT, config.memoryKeepRecent());
    assertEquals(Config.DEFAULT_BOOT_CONTEXT_CHARS, config.memoryBootContextChars());
  }

  @Test
  void missing_keys_inside_a_section_take_their_defaults() {
    Config config = load("""
        agent:
          command: [bash, a.sh]
        context:
          summarizer: {kind: builtin}
        memory:
          keep_recent: 0
        """);
    assertEquals(new AgentConfig(List.of("bash", "a.sh"), AgentConfig.DEFAULT_TIMEOUT,
        AgentConfig.DEFAULT_KILL_GRACE, Map.of(), ResultFallback.EXIT_CODE,
        AgentConfig.DEFAULT_LOG_MAX_BYTES, AgentConfig.DEFAULT_OUTPUT_TAIL_CHARS), config.agent());
    assertEquals(Config.DEFAULT_WINDOW_SIZE, config.context().windowSize());
    assertEquals(0, config.memoryKeepRecent());
    assertEquals(Config.DEFAULT_BOOT_CONTEXT_CHARS, config.memoryBootContextChars());
  }

  @Test
  void sections_written_with_nothing_after_them_take_the_defaults() {
    Config config = load("""
        agent:
        execution:
        context:
        memory:
        retention:
        limits:
        """);
    assertEquals(AgentConfig.defaults(), config.agent());
    assertEquals(ExecutionConfig.defaults(), config.execution());
    assertEquals(Config.defaults().pipelines(), config.pipelines());
  }

  @Test
  void default_pipeline_may_name_the_built_in_pipeline_when_no_pipelines_are_defined() {
    assertEquals("feature", load("default_pipeline: feature\n").defaultPipeline());
  }

  @Test
  void pipelines_replace_the_built_in_ones_and_default_pipeline_picks_one() {
    Config config = load("""
        default_pipeline: quick
        pipelines:
          quick:
            phases:
              - {name: do, instructions: Do it.}
          careful:
            pre_phases:
              - {name: think, instructions: Think.}
            phases:
              - {name: do, instructions: Do it., destructive: true}
        """);
    assertEquals("quick", config.defaultPipeline());
    assertEquals(List.of("quick", "careful"), List.copyOf(config.pipelines().keySet()));
    assertEquals(new Pipeline("quick", List.of(), List.of(new PhaseDef("do", "Do it.", null, false))),
        config.pipeline("quick"));
    assertEquals(new Pipeline("careful", List.of(new PhaseDef("think", "Think.", null, false)),
        List.of(new PhaseDef("do", "Do it.", null, true))), config.pipeline("careful"));
  }

  // --- workflows ---

  @Test
  void a_workflow_is_resolved_against_the_config_files_directory_and_stored_absolute_and_normalized() {
    files.write("conf/flows/design.md", "# design\n");
    Path file = files.write("conf/orchestrate.yaml", """
        pipelines:
          feature:
            phases:
              - name: design
                workflow: ./flows/../flows/design.md
        """);
    Config config = ConfigLoader.load(file);
    PhaseDef design = config.pipeline("feature").phases().get(0);
    assertEquals(dir.resolve("conf/flows/design.md").toAbsolutePath().normalize().toString(), design.workflow());
    assertEquals(null, design.instructions());
  }

  @Test
  void a_workflow_that_does_not_exist_is_an_error_at_its_location() {
    Path expected = dir.resolve("flows/missing.md").toAbsolutePath().normalize();
    assertEquals(List.of("5:19: workflow file 'flows/missing.md' not found (looked for " + expected + ")"),
        problemsOf("""
            pipelines:
              feature:
                phases:
                  - name: design
                    workflow: flows/missing.md
            """));
  }

  @Test
  void a_workflow_that_is_a_directory_is_an_error() throws Exception {
    Files.createDirectories(dir.resolve("flows"));
    assertEquals(List.of("5:19: workflow 'flows' is a directory, not a file (" + dir.resolve("flows") + ")"),
        problemsOf("""
            pipelines:
              feature:
                phases:
                  - name: design
                    workflow: flows
            """));
  }

  // --- unknown keys ---

  @Test
  void an_unknown_key_is_an_error_at_its_location_listing_the_expected_keys() {
    assertEquals(List.of("3:3: unknown key 'depends' in agent; expected one of: command, timeout, "
        + "kill_grace, env, result_fallback, log_max_bytes, output_tail_chars, preset, args, stall_timeout, "
        + "secret_env, stop_leftover_processes, pass_summarizer_key, on_usage_limit, max_wait, resume, sandbox, sandbox_writable, sandbox_gate_network, sandbox_hidden, acp"),
        problemsOf("""
            agent:
              command: [bash, a.sh]
              depends: x
            """));
  }

  @Test
  void a_misspelt_key_gets_a_suggestion_in_every_section() {
    assertEquals(List.of(
        "1:1: unknown key 'pipeline' in the config; did you mean 'pipelines'?",
        "3:3: unknown key 'timout' in agent; did you mean 'timeout'?",
        "5:3: unknown key 'max_wp' in execution; did you mean 'max_wip'?",
        "7:3: unknown key 'windowsize' in context; did you mean 'window_size'?",
        "9:3: unknown key 'keep' in memory; did you mean 'keep_recent'?",
        "12:7: unknown key 'phase' in pipeline 'feature'; did you mean 'phases'?",
        "15:11: unknown key 'instruction' in phase 'build' of pipeline 'feature'; "
            + "did you mean 'instructions'?"),
        problemsOf("""
            pipeline: feature
            agent:
              timout: 30m
            execution:
              max_wp: 2
            context:
              windowsize: 3
            memory:
              keep: 3
            pipelines:
              feature:
                  phase: []
                  phases:
                    - name: build
                      instruction: Build it.
                      instructions: Build it.
            """));
  }

  // --- agent ---

  @Test
  void a_command_written_as_a_string_is_an_error_that_shows_the_list_form() {
    assertEquals(List.of("2:12: agent.command must be a list (argv, no shell), not a string: "
        + "write it as [\"bash\", \"agents/claude.sh\", \"--fast\"]"),
        problemsOf("""
            agent:
              command: bash agents/claude.sh --fast
            """));
  }

  @Test
  void an_empty_command_or_an_empty_argument_is_an_error() {
    assertEquals(List.of("1:18: agent.command is empty: give the program and its arguments, "
        + "e.g. [\"bash\", \"agent.sh\"]"), problemsOf("agent: {command: []}\n"));
    assertEquals(List.of(
        "1:25: agent.command[1] must be a non-empty argument, got ''",
        "1:29: agent.command[2] must be a non-empty argument, got a list"),
        problemsOf("agent: {command: [bash, \"\", [x]]}\n"));
    assertEquals(List.of("1:18: agent.command must be a list of arguments, got a map"),
        problemsOf("agent: {command: {bash: x}}\n"));
  }

  @Test
  void bad_durations_are_errors_naming_the_key_and_the_accepted_forms() {
    assertEquals(List.of(
        "2:12: agent.timeout: bad duration '3 minutes': use a number with ms, s, m, h or d, e.g. "
            + "90s, 30m, 2h, 7d",
        "3:15: agent.kill_grace: bad duration '0s': must be more than zero",
        "4:1: unknown key 'x' in the config; expected one of: agent, agents, execution, default_pipeline, "
            + "pipelines, context, memory, retention, state, limits, budget, workspace, notify, backlog"),
        problemsOf("""
            agent:
              timeout: 3 minutes
              kill_grace: 0s
            x: 1
            """));
    assertEquals(List.of("1:18: agent.timeout: bad duration '90': use a number with ms, s, m, h or d, "
        + "e.g. 90s, 30m, 2h, 7d"), problemsOf("agent: {timeout: 90}\n"));
    assertEquals(List.of("1:18: agent.timeout must be a duration like 90s, 30m or 2h, got a list"),
        problemsOf("agent: {timeout: [30m]}\n"));
  }

  @Test
  void env_values_must_be_scalars_under_valid_names() {
    assertEquals(List.of(
        "3:5: bad environment variable name 'MY-VAR' in agent.env: use letters, digits and '_', "
            + "not starting with a digit",
        "4:11: agent.env.EMPTY must be a string (write \"\" for an empty value), got nothing",
        "5:13: agent.env.NESTED must be a string (write \"\" for an empty value), got a map"),
        problemsOf("""
            agent:
              env:
                MY-VAR: x
                EMPTY:
                NESTED: {a: 1}
            """));
    assertEquals(List.of("1:14: agent.env must be a map of variable names to values, got a list"),
        problemsOf("agent: {env: [A=1]}\n"));
  }

  @Test
  void result_fallback_log_max_bytes_and_output_tail_chars_are_checked() {
    assertEquals(List.of(
        "2:20: agent.result_fallback must be exit_code or strict, got 'lenient'",
        "3:18: agent.log_max_bytes: bad size '10 megs': use a whole number of bytes, optionally "
            + "followed by B, KB, MB, GB (x1000) or KiB, MiB, GiB (x1024), e.g. 10MiB",
        "4:22: agent.output_tail_chars must be at least 100, got 99"),
        problemsOf("""
            agent:
              result_fallback: lenient
              log_max_bytes: 10 megs
              output_tail_chars: 99
            """));
    assertEquals(List.of("1:24: agent.log_max_bytes must be at least 1 byte, got 0B"),
        problemsOf("agent: {log_max_bytes: 0B}\n"));
  }

  @Test
  void backlog_max_bytes_is_a_size_from_one_byte_to_a_gibibyte_defaulting_to_16_mebibytes() {
    assertEquals(16L << 20, load("agent: {command: [x]}\n").backlogMaxBytes());
    Config raised = load("backlog: {max_bytes: 64MiB}\n");
    assertEquals(64L << 20, raised.backlogMaxBytes());
    assertEquals(64L << 20,
        ConfigWithers.withContext(ConfigWithers.withBudget(raised.withExecution(raised.execution()), raised.budget()),
            raised.context()).withProfiles(p -> p).backlogMaxBytes(),
        "kept by every with...");
    assertEquals(List.of("1:22: backlog.max_bytes must be 1 byte to 1GiB, got 2GiB"),
        problemsOf("backlog: {max_bytes: 2GiB}\n"));
    assertEquals(List.of("1:22: backlog.max_bytes must be 1 byte to 1GiB, got 0"),
        problemsOf("backlog: {max_bytes: 0}\n"));
    assertEquals(List.of("1:22: backlog.max_bytes: bad size 'lots': use a whole number of bytes, optionally "
        + "followed by B, KB, MB, GB (x1000) or KiB, MiB, GiB (x1024), e.g. 10MiB"),
        problemsOf("backlog: {max_bytes: lots}\n"));
    assertEquals(List.of("1:11: unknown key 'max_items' in backlog; did you mean 'max_bytes'?"),
        problemsOf("backlog: {max_items: 5}\n"));
  }

  // --- execution ---

  @Test
  void execution_limits_must_be_integers_in_range_and_each_error_names_its_key() {
    assertEquals(List.of(
        "2:12: execution.max_wip must be at least 1, got 0",
        "3:19: execution.max_concurrent must be an integer, got 'two'",
        "4:16: execution.max_retries must be at least 0, got -1",
        "5:20: execution.circuit_breaker must be an integer, got '1.5'",
        "6:14: execution.phase_cap must be at most 1000000, got 99999999999"),
        problemsOf("""
            execution:
              max_wip: 0
              max_concurrent: two
              max_retries: -1
              circuit_breaker: 1.5
              phase_cap: 99999999999
            """));
  }

  @Test
  void zero_retries_is_allowed() {
    assertEquals(0, load("execution: {max_retries: 0}\n").execution().maxRetries());
  }

  @Test
  void a_quoted_number_is_not_an_integer() {
    assertEquals(List.of("1:22: execution.max_wip must be an integer, got '2'"),
        problemsOf("execution: {max_wip: \"2\"}\n"));
  }

  // --- pipelines ---

  @Test
  void a_pipeline_without_phases_is_an_error() {
    assertEquals(List.of(
        "2:3: pipeline 'missing' has no phases",
        "5:13: pipeline 'empty' has no phases",
        "6:3: pipeline 'blank' has no phases"),
        problemsOf("""
            pipelines:
              missing:
                pre_phases: [{name: a, instructions: A.}]
              empty:
                phases: []
              blank:
              feature:
                phases: [{name: a, instructions: A.}]
            """));
  }

  @Test
  void phase_names_must_be_unique_across_pre_phases_and_phases() {
    assertEquals(List.of("7:15: duplicate phase 'scope' in pipeline 'feature' (first defined at line 4)"),
        problemsOf("""
            pipelines:
              feature:
                pre_phases:
                  - name: scope
                    instructions: Scope it.
                phases:
                  - name: scope
                    instructions: Scope it again.
            """));
  }

  @Test
  void a_phase_needs_a_valid_name_and_exactly_one_of_instructions_and_workflow() {
    files.write("flow.md", "x\n");
    assertEquals(List.of(
        "4:9: pipelines.feature.phases[0] has no name",
        "5:15: bad phase name 'code review' in pipeline 'feature': use only letters, digits, '.', '_' and '-', at most 64 characters",
        "7:9: phase 'both' of pipeline 'feature' has both instructions and workflow; keep one",
        "10:9: phase 'neither' of pipeline 'feature' needs instructions or a workflow",
        "11:53: destructive in phase 'maybe' of pipeline 'feature' must be true or false, got 'sometimes'",
        "12:9: pipelines.feature.phases[5] must be a map with name and instructions or workflow, got 'build'",
        "13:37: instructions in phase 'blank' of pipeline 'feature' must be non-empty text, got ' '"),
        problemsOf("""
            pipelines:
              feature:
                phases:
                  - instructions: No name.
                  - name: code review
                    instructions: Review.
                  - name: both
                    instructions: Do it.
                    workflow: flow.md
                  - name: neither
                  - {name: maybe, instructions: x, destructive: sometimes}
                  - build
                  - {name: blank, instructions: " "}
            """));
  }

  @Test
  void pipeline_names_must_use_the_id_characters() {
    assertEquals(
        List.of("2:3: bad pipeline name 'my pipe': use only letters, digits, '.', '_' and '-', at most 64 characters"),
        problemsOf("""
            pipelines:
              my pipe:
                phases: [{name: a, instructions: A.}]
              feature:
                phases: [{name: a, instructions: A.}]
            """));
  }

  @Test
  void pipelines_and_phase_lists_must_have_the_right_shape() {
    assertEquals(List.of(
        "1:12: pipelines must be a map of pipeline names to pipelines, got a list"),
        problemsOf("pipelines: [feature]\n"));
    assertEquals(List.of(
        "2:12: pipeline 'feature' must be a map with phases and optional pre_phases, got 'build'"),
        problemsOf("pipelines:\n  feature: build\n"));
    assertEquals(List.of(
        "3:13: phases of pipeline 'feature' must be a list of phases, got a map"),
        problemsOf("pipelines:\n  feature:\n    phases: {name: a, instructions: A.}\n"));
    assertEquals(List.of("1:1: pipelines is empty: define at least one pipeline, or remove the key "
        + "to use the built-in 'feature' pipeline"), problemsOf("pipelines: {}\n"));
  }

  @Test
  void default_pipeline_must_name_a_defined_pipeline() {
    assertEquals(List.of("1:19: default_pipeline 'bugfix' is not a defined pipeline; defined pipelines: "
        + "quick, careful"),
        problemsOf("""
            default_pipeline: bugfix
            pipelines:
              quick: {phases: [{name: a, instructions: A.}]}
              careful: {phases: [{name: a, instructions: A.}]}
            """));
    assertEquals(List.of("1:19: default_pipeline 'bugfix' is not a defined pipeline; defined pipelines: "
        + "feature"), problemsOf("default_pipeline: bugfix\n"));
  }

  @Test
  void without_default_pipeline_a_pipeline_named_feature_must_exist() {
    assertEquals(List.of("1:1: default_pipeline is not set and no pipeline is named 'feature'; "
        + "set default_pipeline to one of: quick"),
        problemsOf("""
            pipelines:
              quick: {phases: [{name: a, instructions: A.}]}
            """));
  }

  // --- context, memory, retention, state, limits ---

  @Test
  void context_and_memory_values_are_checked() {
    assertEquals(List.of(
        "2:16: context.window_size must be at least 1, got 0",
        "4:16: memory.keep_recent must be at least 0, got -1",
        "5:23: memory.boot_context_chars must be an integer, got 'lots'"),
        problemsOf("""
            context:
              window_size: 0
            memory:
              keep_recent: -1
              boot_context_chars: lots
            """));
  }

  @Test
  void reads_every_kind_of_summarizer() {
    assertEquals(ContextConfig.defaults(), load("context: {summarizer: {kind: builtin}}\n").context());
    assertEquals(new ContextConfig(3, 500, 600, SummarizerConfig.openai("http://127.0.0.1:8080/v1", "small",
        "SUMMARY_KEY", Duration.ofSeconds(5), SummarizerConfig.Fallback.NONE, "Keep ticket numbers.")),
        load("""
            context:
              window_size: 3
              turn_max_chars: 500
              summary_max_chars: 600
              summarizer:
                kind: openai
                base_url: "http://127.0.0.1:8080/v1"
                model: small
                api_key_env: SUMMARY_KEY
                timeout: 5s
                fallback: none
                prompt: Keep ticket numbers.
            """).context());
    assertEquals(SummarizerConfig.command(List.of("llm", "-m", "mini"), SummarizerConfig.DEFAULT_TIMEOUT,
        SummarizerConfig.Fallback.BUILTIN, null),
        load("context: {summarizer: {kind: command, command: [llm, -m, mini]}}\n").context().summarizer());
  }

  @Test
  void summarizer_settings_are_checked_per_kind() {
    assertEquals(List.of("1:30: context.summarizer.kind must be builtin, openai or command, got 'magic'"),
        problemsOf("context: {summarizer: {kind: magic}}\n"));
    assertEquals(List.of("1:39: unknown key 'model' in context.summarizer of kind builtin; expected one of: "
        + "kind, fallback, prompt"),
        problemsOf("context: {summarizer: {kind: builtin, model: m}}\n"));
    assertEquals(List.of("1:23: context.summarizer has no kind; write {kind: builtin}"),
        problemsOf("context: {summarizer: {model: m}}\n"));
    assertEquals(List.of("1:23: context.summarizer must be a map like {kind: builtin}, got 'builtin'"),
        problemsOf("context: {summarizer: builtin}\n"));
    assertEquals(List.of("1:23: context.summarizer of kind openai needs model (a model name)"),
        problemsOf("context: {summarizer: {kind: openai, base_url: \"http://x\"}}\n"));
    assertEquals(List.of("1:48: context.summarizer.base_url must be an http(s) URL like "
        + "https://api.openai.com/v1, got 'ftp://x'"),
        problemsOf("context: {summarizer: {kind: openai, base_url: \"ftp://x\", model: m}}\n"));
    assertEquals(List.of("1:23: context.summarizer of kind command needs command: a list (argv), e.g. "
        + "[\"llm\", \"-m\", \"gpt-4o-mini\"]"),
        problemsOf("context: {summarizer: {kind: command}}\n"));
    assertEquals(List.of("1:49: context.summarizer.fallback must be builtin or none, got 'retry'"),
        problemsOf("context: {summarizer: {kind: builtin, fallback: retry}}\n"));
    assertEquals(List.of("1:83: bad environment variable name '1KEY' in context.summarizer.api_key_env: "
        + "use letters, digits and '_', not starting with a digit"),
        problemsOf("context: {summarizer: {kind: openai, base_url: \"http://x\", model: m, api_key_env: 1KEY}}\n"));
    assertEquals(List.of("1:27: context.turn_max_chars must be at least 200, got 10"),
        problemsOf("context: {turn_max_chars: 10}\n"));
  }

  @Test
  void the_workspace_keys_read_into_the_workspace_config() {
    WorkspaceConfig w = load("""
        execution:
          workspace: worktree
          base_branch: release/2.x
          merge: merge
          delete_merged_branches: false
          commit_author: "Robot Builder <robot@example.com>"
          destructive_runs_alone: true
        retention:
          worktrees: {max_rows: 20, max_age: 2d, discard_uncommitted: true}
        """).execution().workspace();
    assertEquals(new WorkspaceConfig(WorkspaceConfig.Mode.WORKTREE, "release/2.x", WorkspaceConfig.Merge.MERGE, false,
        new WorkspaceConfig.Author("Robot Builder", "robot@example.com"), true), w);
    RetentionConfig.WorktreePolicy r = load(
        "retention: {worktrees: {max_rows: 20, max_age: 2d, discard_uncommitted: true}}\n")
        .retention().worktrees();
    assertEquals(new RetentionConfig.WorktreePolicy(RetentionConfig.Policy.of(20, java.time.Duration.ofDays(2)), true),
        r);
    assertEquals(WorkspaceConfig.defaults(), load("execution: {max_wip: 2}\n").execution().workspace());
  }

  @Test
  void bad_workspace_keys_are_reported_at_their_place() {
    assertEquals(List.of(
        "2:14: execution.workspace must be shared or worktree, got 'tree'",
        "3:10: execution.merge must be rebase, merge, none or push, got 'squash'",
        "4:16: execution.base_branch '-x..y' is not a branch name git accepts here: use letters, digits and "
            + ". _ / - (like main or release/2.x)",
        "5:18: execution.commit_author must read \"Name <email>\", like \"orchestrate <orchestrate@localhost>\", "
            + "got 'robot'",
        "6:38: unknown key 'keep' in retention.worktrees; expected one of: max_rows, max_age, discard_uncommitted"),
        problemsOf("""
            execution:
              workspace: tree
              merge: squash
              base_branch: "-x..y"
              commit_author: robot
            retention: {worktrees: {max_rows: 5, keep: 1}}
            """));
  }

  @Test
  void landing_remote_makes_work_meet_on_the_remote_and_only_with_worktrees() {
    WorkspaceConfig remote = load("""
        execution:
          workspace: worktree
          landing: remote
          remote: upstream
        """).execution().workspace();
    assertEquals(WorkspaceConfig.LandOn.REMOTE, remote.landOn());
    assertTrue(remote.landsOnRemote());
    assertEquals("upstream", remote.remote());
    assertEquals(WorkspaceConfig.LandOn.LOCAL, load("execution: {workspace: worktree}\n").execution().workspace()
        .landOn(), "the default: one checkout");
    assertTrue(!load("execution: {landing: remote}\n").execution().workspace().landsOnRemote(),
        "the shared workspace has no commits to share");
    List<String> problems = problemsOf("execution: {landing: cloud}\n");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("execution.landing") && problems.get(0).contains("local")
        && problems.get(0).contains("remote"), problems.toString());
  }

  @Test
  void merge_push_takes_a_remote_and_a_pull_request_command_as_a_string_or_a_list() {
    WorkspaceConfig shell = load("""
        execution:
          workspace: worktree
          merge: push
          remote: upstream
          pull_request: "gh pr create --head {branch} --title {title}"
          pull_request_timeout: 2m
        """).execution().workspace();
    assertEquals(WorkspaceConfig.Merge.PUSH, shell.merge());
    assertEquals("upstream", shell.remote());
    assertEquals(List.of("/bin/sh", "-c", "gh pr create --head {branch} --title {title}"),
        shell.pullRequest().argv());
    assertEquals(java.time.Duration.ofMinutes(2), shell.pullRequest().timeout());
    WorkspaceConfig list = load("""
        execution:
          merge: push
          pull_request: [glab, mr, create, --title, "{title}"]
        """).execution().workspace();
    assertEquals("origin", list.remote(), "the default remote");
    assertEquals(List.of("glab", "mr", "create", "--title", "{title}"), list.pullRequest().argv());
    assertEquals(WorkspaceConfig.DEFAULT_PULL_REQUEST_TIMEOUT, list.pullRequest().timeout());
    assertEquals(null, load("execution: {merge: push}\n").execution().workspace().pullRequest());
    assertEquals(List.of(
        "2:11: execution.remote '-x' is not a remote's name: use letters, digits, '.', '_', '-' or '/', like origin",
        "3:17: execution.pull_request is empty: give the program and its arguments"),
        problemsOf("""
            execution:
              remote: "-x"
              pull_request: []
            """));
  }

  @Test
  void retention_knows_only_events_keep_recent_and_limits_must_be_empty_in_this_version() {
    assertEquals(List.of(
        "2:3: unknown key 'max_age' in retention; expected one of: maintenance_interval, budget, jobs, "
            + "turns, events, stats_samples, worktrees",
        "4:3: unknown key 'log_bytes' in limits: " + ConfigLoader.LIMITS_MOVED),
        problemsOf("""
            retention:
              max_age: 30d
            limits:
              log_bytes: 1MiB
            """));
    assertEquals(List.of("1:12: retention must be a map, got '30d'"), problemsOf("retention: 30d\n"));
    assertEquals(List.of("1:20: unknown key 'max_row' in retention.jobs; did you mean 'max_rows'?"),
        problemsOf("retention: {jobs: {max_row: 5}}\n"));
    assertEquals(List.of("1:35: retention.events.keep_recent must be at least 0, got -1"),
        problemsOf("retention: {events: {keep_recent: -1}}\n"));
  }

  @Test
  void retention_policies_are_read_per_structure_with_defaults_and_none_switching_a_limit_off() {
    RetentionConfig r = load("""
        retention:
          maintenance_interval: 30s
          budget: 50
          jobs: {max_rows: 200, max_age: 7d}
          turns: {max_age: none}
          stats_samples: {max_rows: 100}
        """).retention();
    assertEquals(Duration.ofSeconds(30), r.maintenanceInterval());
    assertEquals(50, r.budget());
    assertEquals(RetentionConfig.Policy.of(200, Duration.ofDays(7)), r.jobs());
    assertEquals(RetentionConfig.Policy.of(RetentionConfig.defaults().turns().maxRows(), null), r.turns());
    assertEquals(RetentionConfig.defaults().events(), r.events());
    assertEquals(RetentionConfig.Policy.of(100, RetentionConfig.defaults().statsSamples().maxAge()), r.statsSamples());
    assertEquals(RetentionConfig.defaults(), load("memory: {keep_recent: 3}\n").retention());
  }

  @Test
  void bad_retention_values_are_reported_where_they_are() {
    assertEquals(List.of(
        "2:25: retention.maintenance_interval: bad duration '0s': must be more than zero",
        "3:11: retention.budget must be at least 1, got 0",
        "4:20: retention.jobs.max_rows must be at least 0, got -5",
        "5:20: retention.turns.max_age: bad duration '3 weeks': use a number with ms, s, m, h or d, "
            + "e.g. 90s, 30m, 2h, 7d"),
        problemsOf("""
            retention:
              maintenance_interval: 0s
              budget: 0
              jobs: {max_rows: -5}
              turns: {max_age: 3 weeks}
            """));
  }

  @Test
  void retention_events_keep_recent_defaults_to_10000_and_can_be_set() {
    assertEquals(10_000, load("memory: {keep_recent: 3}\n").retention().events().maxRows());
    assertEquals(0, load("retention: {events: {keep_recent: 0}}\n").retention().events().maxRows());
    assertEquals(25, load("retention:\n  events:\n    keep_recent: 25\n").retention().events().maxRows());
  }

  // --- the file as a whole ---

  @Test
  void reports_every_problem_at_once_with_line_and_column() {
    Path file = files.write("orchestrate.yaml", """
        agent:
          command: "bash agent.sh"
          timeout: soon
          color: blue
        execution:
          max_wip: 0
          max_concurrent: 2
        default_pipeline: feature
        pipelines:
          feature:
            phases:
              - name: build
                instructions: Build.
              - name: build
                instructions: Again.
        memory:
          keep_recent: many
        limits:
          cpu: 2
        """);
    List<Problem> problems = TestFiles.rawProblems(() -> ConfigLoader.load(file));
    String name = file.toString();
    assertEquals(List.of(
        new Problem(name, 2, 12, "agent.command must be a list (argv, no shell), not a string: "
            + "write it as [\"bash\", \"agent.sh\"]"),
        new Problem(name, 3, 12, "agent.timeout: bad duration 'soon': use a number with ms, s, m, h or d, "
            + "e.g. 90s, 30m, 2h, 7d"),
        new Problem(name, 4, 3, "unknown key 'color' in agent; expected one of: command, timeout, "
            + "kill_grace, env, result_fallback, log_max_bytes, output_tail_chars, preset, args, stall_timeout, "
            + "secret_env, stop_leftover_processes, pass_summarizer_key, on_usage_limit, max_wait, resume, sandbox, sandbox_writable, sandbox_gate_network, sandbox_hidden, acp"),
        new Problem(name, 6, 12, "execution.max_wip must be at least 1, got 0"),
        new Problem(name, 14, 15, "duplicate phase 'build' in pipeline 'feature' (first defined at line 12)"),
        new Problem(name, 17, 16, "memory.keep_recent must be an integer, got 'many'"),
        new Problem(name, 19, 3, "unknown key 'cpu' in limits: limits takes no keys; size caps are set by "
            + "agent.output_tail_chars, context.turn_max_chars and context.summary_max_chars, the others are "
            + "fixed (docs/how-it-works.md: Size caps)")),
        problems);
    assertEquals(name + ":6:12: execution.max_wip must be at least 1, got 0", problems.get(3).toString());
  }

  @Test
  void a_config_that_is_not_a_map_is_an_error() {
    assertEquals(List.of("1:1: a config file must be a map of settings (agent, execution, pipelines, ...), "
        + "got a list"), problemsOf("- agent\n"));
  }

  @Test
  void a_syntax_error_is_reported_alone() {
    assertEquals(List.of("2:15: invalid YAML: mapping values are not allowed here; check the indentation"),
        problemsOf("agent:\n  timeout: 30m: x\nexecution: {max_wip: 0}\n"));
  }

  @Test
  void an_empty_config_file_is_an_error() {
    assertEquals(List.of("0:0: file is empty"), problemsOf(""));
  }

  @Test
  void a_missing_config_file_is_an_error_naming_the_file_as_given() {
    Path file = dir.resolve("nope.yaml");
    ValidationException e = assertThrows(ValidationException.class, () -> ConfigLoader.load(file));
    assertEquals(file + ": file not found", e.getMessage());
  }

  @Test
  void an_empty_limits_section_from_an_earlier_init_is_still_accepted() {
    assertEquals(Config.defaults().context(), load("limits: {}\n").context());
  }

  // --- every numeric knob: safe at its maximum, refused just above ---

  /** {@code section.key}, its maximum as written, and one step above it. */
  static Stream<Arguments> numericKnobs() {
    return Stream.of(
        Arguments.of("agent", "timeout", "7d", "7d1ms", "7d"),
        Arguments.of("agent", "kill_grace", "1h", "1h1ms", "1h"),
        Arguments.of("agent", "log_max_bytes", "1GiB", "1073741825", "1GiB"),
        Arguments.of("agent", "output_tail_chars", "100000", "100001", "100000"),
        Arguments.of("execution", "max_wip", "10000", "10001", "10000"),
        Arguments.of("execution", "max_concurrent", "64", "65", "64"),
        Arguments.of("execution", "max_retries", "100", "101", "100"),
        Arguments.of("execution", "circuit_breaker", "1000", "1001", "1000"),
        Arguments.of("execution", "phase_cap", "1000000", "1000001", "1000000"),
        Arguments.of("context", "window_size", "50", "51", "50"),
        Arguments.of("context", "turn_max_chars", "100000", "100001", "100000"),
        Arguments.of("context", "summary_max_chars", "100000", "100001", "100000"),
        Arguments.of("memory", "keep_recent", "1000000", "1000001", "1000000"),
        Arguments.of("memory", "boot_context_chars", "1000000", "1000001", "1000000"),
        Arguments.of("retention", "maintenance_interval", "7d", "169h", "7d"),
        Arguments.of("retention", "budget", "10000", "10001", "10000"),
        Arguments.of("retention", "jobs: {max_rows", "1000000000}", "1000000001}", "1000000000"),
        Arguments.of("retention", "turns: {max_age", "3650d}", "3651d}", "3650d"));
  }

  @ParameterizedTest(name = "{0}.{1}")
  @MethodSource("numericKnobs")
  void every_numeric_knob_loads_at_its_maximum_and_is_refused_just_above(String section, String key, String max,
      String above, String limit) {
    load(section + ":\n  " + key + ": " + max + "\n");
    List<String> problems = problemsOf(section + ":\n  " + key + ": " + above + "\n");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains(" must be at most " + limit + ", got "), problems.get(0));
  }

  @Test
  void the_summarizer_timeout_has_a_maximum_too() {
    load("context:\n  summarizer: {kind: command, command: [x], timeout: 1h}\n");
    assertEquals(List.of("2:54: context.summarizer.timeout must be at most 1h, got '2h'"),
        problemsOf("context:\n  summarizer: {kind: command, command: [x], timeout: 2h}\n"));
  }

  @Test
  void output_tail_chars_of_2147483647_is_refused_at_load() {
    assertEquals(List.of("2:22: agent.output_tail_chars must be at most 100000, got 2147483647"),
        problemsOf("agent:\n  output_tail_chars: 2147483647\n"));
  }

  @Test
  void secret_env_stop_leftover_processes_and_pass_summarizer_key_are_read_with_safe_defaults() {
    AgentConfig defaults = load("agent: {command: [a]}\n").agent();
    assertEquals(List.of(), defaults.secretEnv());
    assertEquals(true, defaults.stopLeftoverProcesses());
    assertEquals(false, defaults.passSummarizerKey());
    AgentConfig set = load("""
        agent:
          command: [a]
          secret_env: [DB_URL, deploy_key]
          stop_leftover_processes: false
          pass_summarizer_key: true
        """).agent();
    assertEquals(List.of("DB_URL", "deploy_key"), set.secretEnv());
    assertEquals(false, set.stopLeftoverProcesses());
    assertEquals(true, set.passSummarizerKey());
  }

  @Test
  void secret_env_must_list_valid_names_and_the_switches_must_be_booleans() {
    assertEquals(List.of(
        "2:22: bad environment variable name 'MY-KEY' in agent.secret_env: use letters, digits and '_', "
            + "not starting with a digit",
        "3:28: agent.stop_leftover_processes must be true or false, got 'sometimes'",
        "4:24: agent.pass_summarizer_key must be true or false, got '1'"),
        problemsOf("""
            agent:
              secret_env: [GOOD, MY-KEY]
              stop_leftover_processes: sometimes
              pass_summarizer_key: 1
            """));
    assertEquals(List.of("1:21: agent.secret_env must be a list of variable names, e.g. [DB_URL], got 'DB_URL'"),
        problemsOf("agent: {secret_env: DB_URL}\n"));
  }

  @Test
  void on_usage_limit_defaults_to_halt_and_max_wait_to_six_hours_and_both_are_checked() {
    AgentConfig defaults = load("agent: {command: [a]}\n").agent();
    assertEquals(OnUsageLimit.HALT, defaults.onUsageLimit());
    assertEquals(java.time.Duration.ofHours(6), defaults.maxWait());
    AgentConfig set = load("agent: {command: [a], on_usage_limit: wait, max_wait: 30m}\n").agent();
    assertEquals(OnUsageLimit.WAIT, set.onUsageLimit());
    assertEquals(java.time.Duration.ofMinutes(30), set.maxWait());
    List<String> problems = problemsOf("agent: {on_usage_limit: sleep, max_wait: 9d}\n");
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("agent.on_usage_limit") && problems.get(0).contains("must be halt or wait"),
        problems.get(0));
    assertTrue(problems.get(1).contains("agent.max_wait"), problems.get(1));
  }

  @Test
  void agent_profiles_are_chosen_per_pipeline_and_phase_with_fallbacks() {
    Config config = load("""
        agent: {preset: claude}
        agents:
          codex: {preset: codex, max_concurrent: 2, args: ["--sandbox", "workspace-write"]}
          script: {command: [bash, agent.sh], timeout: 5m}
        default_pipeline: p
        pipelines:
          p:
            agent: claude
            fallback: [codex]
            phases:
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review.", agent: codex, fallback: [script]}
        """);
    assertEquals(List.of("claude", "codex", "script"), List.copyOf(config.profiles().keySet()));
    assertEquals(2, config.profile("codex").maxConcurrent());
    assertEquals(0, config.profile("claude").maxConcurrent());
    assertEquals(java.time.Duration.ofMinutes(5), config.profile("script").timeout());
    Pipeline p = config.pipeline("p");
    assertEquals(java.util.Arrays.asList("claude", "codex"), p.profilesFor(p.phases().get(0)));
    assertEquals(List.of("codex", "script"), p.profilesFor(p.phases().get(1)));
  }

  @Test
  void without_an_agent_block_the_first_profile_is_the_default() {
    Config config = load("agents: {first: {command: [a]}, second: {command: [b]}}\n");
    assertEquals("first", config.agent().profileName());
    assertEquals(List.of("first", "second"), List.copyOf(config.profiles().keySet()));
  }

  @Test
  void unknown_profiles_bad_caps_and_a_name_taken_by_the_agent_block_are_errors_with_their_place() {
    List<String> problems = problemsOf("""
        agent: {preset: claude}
        agents:
          claude: {preset: codex}
          codex: {preset: codex, max_concurrent: 0, colour: red}
        default_pipeline: p
        pipelines:
          p:
            agent: gemini
            phases:
              - {name: build, instructions: "Build.", fallback: [nobody]}
        """);
    assertTrue(problems.stream().anyMatch(p -> p.startsWith("2:1: agents.claude has the name of the agent: block")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("agents.codex.max_concurrent must be at least 1")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("unknown key 'colour' in agents.codex")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.startsWith("8:12: unknown agent profile 'gemini' in pipeline 'p'")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("unknown agent profile 'nobody' in the fallback of phase "
        + "'build'")), problems.toString());
  }
}
