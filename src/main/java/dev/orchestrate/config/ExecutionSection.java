package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.EXECUTION_KEYS;
import static dev.orchestrate.config.ConfigLoader.WORKSPACE_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code execution:} (with {@code execution.workspace}) and {@code workspace:} (the set-up and copied
 * paths of each worktree), for {@link ConfigLoader}.
 */
final class ExecutionSection extends SectionReader {
  ExecutionSection(SectionReader load) {
    super(load);
  }

  /** A git branch name we accept in execution.base_branch: no spaces, no leading '-', no "..". */
  private static final Pattern BRANCH = Pattern.compile("(?!-)(?!.*\\.\\.)(?!.*//)[A-Za-z0-9._/-]+(?<![./])");

  ExecutionConfig execution(YamlNode.Mapping map) {
    problems.unknownKeys(map, EXECUTION_KEYS, "key", "execution");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    return new ExecutionConfig(
        setting(section, "max_wip", n -> values.integer(n, "execution.max_wip", 1, Ranges.MAX_WIP))
            .orElse(ExecutionConfig.DEFAULT_MAX_WIP),
        setting(section, "max_concurrent", n -> values.integer(n, "execution.max_concurrent", 1, Ranges.MAX_CONCURRENT))
            .orElse(ExecutionConfig.DEFAULT_MAX_CONCURRENT),
        setting(section, "max_retries", n -> values.integer(n, "execution.max_retries", 0, Ranges.MAX_RETRIES))
            .orElse(ExecutionConfig.DEFAULT_MAX_RETRIES),
        setting(section, "circuit_breaker",
            n -> values.integer(n, "execution.circuit_breaker", 1, Ranges.CIRCUIT_BREAKER))
            .orElse(ExecutionConfig.DEFAULT_CIRCUIT_BREAKER),
        setting(section, "phase_cap", n -> values.integer(n, "execution.phase_cap", 1, Ranges.PHASE_CAP))
            .orElse(ExecutionConfig.DEFAULT_PHASE_CAP),
        setting(section, "max_cost_usd", this::maxCostUsd).orElse(null),
        setting(section, "max_tokens", this::maxTokens).orElse(null),
        workspace(section));
  }

  /** The execution.workspace keys (docs/workspaces.md). */
  private WorkspaceConfig workspace(Optional<YamlNode.Mapping> section) {
    WorkspaceConfig defaults = WorkspaceConfig.defaults();
    WorkspaceConfig config = new WorkspaceConfig(
        setting(section, "workspace", n -> values.choice(n, "execution.workspace",
            Values.words(WorkspaceConfig.Mode.values()))).orElse(defaults.mode()),
        setting(section, "base_branch", this::branch).orElse(defaults.baseBranch()),
        setting(section, "merge", n -> values.choice(n, "execution.merge",
            Values.words(WorkspaceConfig.Merge.values()))).orElse(defaults.merge()),
        setting(section, "delete_merged_branches", n -> values.bool(n, "execution.delete_merged_branches"))
            .orElse(defaults.deleteMergedBranches()),
        setting(section, "commit_author", this::author).orElse(defaults.commitAuthor()),
        setting(section, "destructive_runs_alone", n -> values.bool(n, "execution.destructive_runs_alone"))
            .orElse(defaults.destructiveRunsAlone()))
        .withPush(setting(section, "remote", this::remote).orElse(WorkspaceConfig.DEFAULT_REMOTE),
            pullRequest(section));
    ChecksConfig checks = checks(section, config.merge());
    ReviewFeedbackConfig feedback = feedback(section, checks);
    return config.withChecks(checks == null ? null : checks.withFeedback(feedback)).withIntegrationBatch(setting(
        section,
        "integration_batch", n -> values.integer(n, "execution.integration_batch", 1,
            WorkspaceConfig.MAX_INTEGRATION_BATCH))
        .orElse(1)).withLandOn(
            setting(section, "landing", n -> values.choice(n, "execution.landing",
                Values.words(WorkspaceConfig.LandOn.values()))).orElse(WorkspaceConfig.LandOn.LOCAL));
  }

  /**
   * execution.checks with checks_interval, checks_timeout, checks_max_rounds and checks_phase; null
   * when not set. Only with merge: push: the checks look at the pushed branch.
   */
  private ChecksConfig checks(Optional<YamlNode.Mapping> section, WorkspaceConfig.Merge merge) {
    java.time.Duration interval = setting(section, "checks_interval",
        n -> duration(n, "execution.checks_interval", Ranges.AGENT_TIMEOUT).flatMap(d -> {
          if (d.compareTo(java.time.Duration.ofSeconds(1)) >= 0) {
            return Optional.of(d);
          }
          problems.at(n, "execution.checks_interval must be at least 1s, got " + n.describe());
          return Optional.empty();
        })).orElse(ChecksConfig.DEFAULT_INTERVAL);
    java.time.Duration timeout = setting(section, "checks_timeout",
        n -> duration(n, "execution.checks_timeout", Ranges.AGENT_TIMEOUT)).orElse(ChecksConfig.DEFAULT_TIMEOUT);
    int rounds = setting(section, "checks_max_rounds", n -> values.integer(n, "execution.checks_max_rounds", 1, 100))
        .orElse(ChecksConfig.DEFAULT_MAX_ROUNDS);
    String phase = setting(section, "checks_phase", n -> values.nonBlank(n, "execution.checks_phase",
        "the name of a phase of the pipelines")).orElse(null);
    java.time.Duration poll = interval.compareTo(ChecksConfig.MAX_POLL) < 0 ? interval : ChecksConfig.MAX_POLL;
    Optional<YamlNode> node = section.flatMap(m -> m.get("checks"));
    if (node.isEmpty() || off(node.get())) {
      return null;
    }
    ProjectCommand command;
    if (node.get() instanceof YamlNode.Sequence) {
      Optional<List<String>> argv = values.strings(node.get(), "checks", "execution", "argument");
      if (argv.isPresent() && argv.get().isEmpty()) {
        problems.at(node.get(), "execution.checks is empty: give the program and its arguments");
        return null;
      }
      command = argv.map(a -> new ProjectCommand("checks", a, String.join(" ", a), poll)).orElse(null);
    } else {
      command = values.nonBlank(node.get(), "execution.checks", "a command like \"gh pr checks {branch}\"")
          .map(text -> ProjectCommand.shell("checks", text, poll)).orElse(null);
    }
    if (command == null) {
      return null;
    }
    if (merge != WorkspaceConfig.Merge.PUSH) {
      problems.at(node.get(), "execution.checks needs execution.merge: push (the checks look at the pushed branch): "
          + "set merge: push with workspace: worktree, or remove checks");
      return null;
    }
    return new ChecksConfig(command, interval, timeout, rounds, phase);
  }

  /** The values of execution.land. */
  private static final java.util.Map<String, Boolean> LAND = landValues();

  private static java.util.Map<String, Boolean> landValues() {
    java.util.Map<String, Boolean> values = new java.util.LinkedHashMap<>();
    values.put("none", false);
    values.put("auto", true);
    return java.util.Collections.unmodifiableMap(values);
  }

  /**
   * execution.review_feedback with review_feedback_max_rounds, review_feedback_phase,
   * review_feedback_timeout, land and land_command; null when review_feedback is not set. It is
   * polled with the checks (so it needs them), and land: auto needs it: approval is what it says.
   */
  private ReviewFeedbackConfig feedback(Optional<YamlNode.Mapping> section, ChecksConfig checks) {
    int rounds = setting(section, "review_feedback_max_rounds",
        n -> values.integer(n, "execution.review_feedback_max_rounds", 1, 100))
        .orElse(ReviewFeedbackConfig.DEFAULT_MAX_ROUNDS);
    String phase = setting(section, "review_feedback_phase", n -> values.nonBlank(n,
        "execution.review_feedback_phase", "the name of a phase of the pipelines")).orElse(null);
    java.time.Duration timeout = setting(section, "review_feedback_timeout",
        n -> duration(n, "execution.review_feedback_timeout", ReviewFeedbackConfig.MAX_TIMEOUT))
        .orElse(ReviewFeedbackConfig.DEFAULT_TIMEOUT);
    boolean auto = setting(section, "land", n -> values.choice(n, "execution.land", LAND)).orElse(false);
    Optional<YamlNode> landNode = section.flatMap(m -> m.get("land"));
    Optional<YamlNode> landCommandNode = section.flatMap(m -> m.get("land_command")).filter(n -> !off(n));
    ProjectCommand land = landCommandNode.isEmpty() ? null : command(landCommandNode.get(), "land_command",
        "a command like \"gh pr merge {pull_request} --squash\"", ReviewFeedbackConfig.DEFAULT_LAND_TIMEOUT);
    Optional<YamlNode> node = section.flatMap(m -> m.get("review_feedback")).filter(n -> !off(n));
    java.time.Duration poll = checks == null ? ChecksConfig.MAX_POLL : checks.command().timeout();
    ProjectCommand command = node.isEmpty() ? null : command(node.get(), "review_feedback",
        "a command like \"gh pr view {pull_request} --json state,reviewDecision,reviews,comments\"", poll);
    if (auto && land == null) {
      problems.at(landNode.orElseThrow(), "execution.land: auto needs execution.land_command, the command that "
          + "merges the pull request (like \"gh pr merge {pull_request} --squash\")");
      return null;
    }
    if (!auto && landCommandNode.isPresent()) {
      problems.at(landCommandNode.get(), "execution.land_command is set but execution.land is none: set land: "
          + "auto to merge approved, green pull requests with it, or remove land_command");
      return null;
    }
    if (auto && node.isEmpty()) {
      problems.at(landNode.orElseThrow(), "execution.land: auto needs execution.review_feedback (a pull request "
          + "is merged only once its reviews say approved) and execution.checks (and only once they are green)");
      return null;
    }
    if (node.isEmpty() || command == null) {
      return null;
    }
    if (checks == null) {
      problems.at(node.get(), "execution.review_feedback needs execution.checks (it is polled with them, and an "
          + "item is done only once they are green): set checks (\"true\" when the branch has no CI), or remove "
          + "review_feedback");
      return null;
    }
    return new ReviewFeedbackConfig(command, rounds, phase, timeout, auto ? land : null);
  }

  /** A command key: one string (run by /bin/sh -c) or a list (the argv); null when it is not valid. */
  private ProjectCommand command(YamlNode node, String key, String example, java.time.Duration timeout) {
    if (node instanceof YamlNode.Sequence) {
      Optional<List<String>> argv = values.strings(node, key, "execution", "argument");
      if (argv.isPresent() && argv.get().isEmpty()) {
        problems.at(node, "execution." + key + " is empty: give the program and its arguments");
        return null;
      }
      return argv.map(a -> new ProjectCommand(key, a, String.join(" ", a), timeout)).orElse(null);
    }
    return values.nonBlank(node, "execution." + key, example).map(text -> ProjectCommand.shell(key, text, timeout))
        .orElse(null);
  }

  /** execution.remote: a remote's name as git accepts it (checked against the repository at preflight). */
  private Optional<String> remote(YamlNode node) {
    return values.nonBlank(node, "execution.remote", "a remote's name like origin").flatMap(name -> {
      if (BRANCH.matcher(name).matches()) {
        return Optional.of(name);
      }
      problems.at(node, "execution.remote " + Quote.value(name) + " is not a remote's name: use letters, digits, "
          + "'.', '_', '-' or '/', like origin");
      return Optional.empty();
    });
  }

  /**
   * execution.pull_request: one string (run by /bin/sh -c) or a list (the argv), with
   * execution.pull_request_timeout; null when not set.
   */
  private ProjectCommand pullRequest(Optional<YamlNode.Mapping> section) {
    java.time.Duration timeout = setting(section, "pull_request_timeout",
        n -> duration(n, "execution.pull_request_timeout", Ranges.AGENT_TIMEOUT))
        .orElse(WorkspaceConfig.DEFAULT_PULL_REQUEST_TIMEOUT);
    Optional<YamlNode> node = section.flatMap(m -> m.get("pull_request"));
    if (node.isEmpty() || off(node.get())) {
      return null;
    }
    if (node.get() instanceof YamlNode.Sequence) {
      Optional<List<String>> argv = values.strings(node.get(), "pull_request", "execution", "argument");
      if (argv.isPresent() && argv.get().isEmpty()) {
        problems.at(node.get(), "execution.pull_request is empty: give the program and its arguments");
        return null;
      }
      return argv.map(a -> new ProjectCommand("pull_request", a, String.join(" ", a), timeout)).orElse(null);
    }
    return values.nonBlank(node.get(), "execution.pull_request", "a command like \"gh pr create --head {branch} "
        + "--base {base} --title {title} --body-file {body_file}\"")
        .map(text -> ProjectCommand.shell("pull_request", text, timeout)).orElse(null);
  }

  private Optional<String> branch(YamlNode node) {
    if (off(node)) {
      return Optional.empty(); // null: the branch checked out when the run starts
    }
    return values.nonBlank(node, "execution.base_branch", "a branch name like main").flatMap(name -> {
      String branch = name.startsWith("refs/heads/") ? name.substring("refs/heads/".length()) : name;
      if (BRANCH.matcher(branch).matches() && !branch.endsWith(".lock")) {
        return Optional.of(branch);
      }
      problems.at(node, "execution.base_branch '" + name + "' is not a branch name git accepts here: use letters, "
          + "digits and . _ / - (like main or release/2.x)");
      return Optional.empty();
    });
  }

  private Optional<WorkspaceConfig.Author> author(YamlNode node) {
    return values.nonBlank(node, "execution.commit_author", "\"Name <email>\"").flatMap(text -> {
      Optional<WorkspaceConfig.Author> author = WorkspaceConfig.Author.parse(text);
      if (author.isEmpty()) {
        problems.at(node, "execution.commit_author must read \"Name <email>\", like \"orchestrate "
            + "<orchestrate@localhost>\", got '" + text + "'");
      }
      return author;
    });
  }

  /** The {@code workspace:} section: set-up commands and copied paths of each new worktree. */
  Optional<WorkspacePreparation> workspacePreparation(YamlNode.Mapping map) {
    problems.unknownKeys(map, WORKSPACE_KEYS, "key", "workspace");
    Optional<List<ProjectCommand>> setup = map.get("setup").isPresent()
        ? projectCommands(map.get("setup").get(), "workspace.setup")
        : Optional.of(List.of());
    Optional<List<String>> copy = map.get("copy").isPresent()
        ? values.strings(map.get("copy").get(), "workspace.copy", "", "path").flatMap(paths -> map.get("copy")
            .get() instanceof YamlNode.Sequence list ? copyPaths(list, paths) : Optional.of(List.of()))
        : Optional.of(List.of());
    if (setup.isEmpty() || copy.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new WorkspacePreparation(setup.get(), copy.get()));
  }

  record WorkspacePreparation(List<ProjectCommand> setup, List<String> copy) {
  }

  /**
   * The paths of {@code workspace.copy}: relative to the repository's top, inside it, never into
   * {@code .git}; written normalized, without duplicates.
   */
  private Optional<List<String>> copyPaths(YamlNode.Sequence list, List<String> paths) {
    List<String> out = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < paths.size(); i++) {
      String text = paths.get(i);
      YamlNode node = list.items().get(i);
      Path path;
      try {
        path = Path.of(text);
      } catch (java.nio.file.InvalidPathException e) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " is not a valid path");
        ok = false;
        continue;
      }
      Path normal = path.normalize();
      if (path.isAbsolute() || normal.toString().isEmpty() || normal.startsWith("..")
          || normal.toString().equals(".")) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " leaves the repository: give a path relative to "
            + "the repository's top, inside it (like .env or config/local.yml)");
        ok = false;
      } else if (normal.getName(0).toString().equals(".git")) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " is inside .git: orchestrate copies only the "
            + "project's own files");
        ok = false;
      } else if (out.contains(normal.toString())) {
        problems.at(node, "workspace.copy names " + Quote.value(text) + " twice");
        ok = false;
      } else {
        out.add(normal.toString());
      }
    }
    return ok ? Optional.of(out) : Optional.empty();
  }
}
