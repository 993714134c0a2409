package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.PHASE_KEYS;
import static dev.orchestrate.config.ConfigLoader.PIPELINE_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code pipelines:} and {@code default_pipeline}: pipelines, their phases and gates, the agent
 * profiles they name (checked once the profiles are known), for {@link ConfigLoader}.
 */
final class PipelinesSection extends SectionReader {
  PipelinesSection(SectionReader load) {
    super(load);
  }

  /** {@code changes: required} needs a worktree: only there can orchestrate see what an attempt changed. */
  void checkChanges(YamlNode.Mapping root, Map<String, Pipeline> pipelines, ExecutionConfig execution) {
    if (execution.workspace().worktrees()) {
      return;
    }
    for (Pipeline pipeline : pipelines.values()) {
      for (String list : List.of("pre_phases", "phases")) {
        List<PhaseDef> phases = list.equals("phases") ? pipeline.phases() : pipeline.prePhases();
        for (int i = 0; i < phases.size(); i++) {
          PhaseDef phase = phases.get(i);
          if (phase.changes() == PhaseDef.Changes.REQUIRED) {
            problems.at(changesNode(root, pipeline.name(), list, i), "phase " + Quote.value(phase.name())
                + " of pipeline " + Quote.value(pipeline.name()) + " has changes: required, which needs "
                + "execution.workspace: worktree (orchestrate sees an attempt's changes only in its own worktree)");
          }
        }
      }
    }
  }

  /** Where a phase wrote {@code changes:} (pipelines.NAME.LIST[i].changes), for its problem's place. */
  private static YamlNode changesNode(YamlNode.Mapping root, String pipeline, String list, int index) {
    YamlNode pipelines = root.get("pipelines").orElseThrow();
    return Optional.of(pipelines).filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get(pipeline)).filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get(list)).filter(YamlNode.Sequence.class::isInstance).map(YamlNode.Sequence.class::cast)
        .filter(s -> index < s.items().size()).map(s -> s.items().get(index))
        .filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get("changes")).orElse(pipelines);
  }

  /** Where a pipeline or phase names an agent profile, to check once the profiles are known. */
  private record ProfileName(String name, YamlNode node, String where) {
  }

  private final List<ProfileName> profileNames = new ArrayList<>();

  void checkProfileNames(AgentConfig agent, Map<String, AgentConfig> others) {
    List<String> known = new ArrayList<>();
    known.add(agent.profileName());
    known.addAll(others.keySet());
    for (ProfileName n : profileNames) {
      if (!known.contains(n.name())) {
        problems.at(n.node(), "unknown agent profile " + Quote.value(n.name()) + " in " + n.where() + ": the profiles "
            + "are " + String.join(", ", known) + " (agent: is named by its preset; others are the keys of agents:)");
      }
    }
  }

  /** The agent profile a pipeline or phase names with {@code agent:} and {@code fallback:}. */
  private Optional<String> profileRef(YamlNode.Mapping map, String where) {
    Optional<String> name = map.get("agent").flatMap(n -> values.nonBlank(n, "agent in " + where, "a profile name"));
    name.ifPresent(n -> profileNames.add(new ProfileName(n, map.get("agent").get(), where)));
    return name;
  }

  private List<String> fallbackRefs(YamlNode.Mapping map, String where) {
    Optional<YamlNode> node = map.get("fallback");
    if (node.isEmpty()) {
      return List.of();
    }
    List<String> names = values.strings(node.get(), "fallback", where, "profile name").orElse(List.of());
    names.forEach(n -> profileNames.add(new ProfileName(n, node.get(), "the fallback of " + where)));
    return names;
  }

  Map<String, Pipeline> pipelines(YamlNode.Entry entry) {
    Optional<YamlNode.Mapping> map = values.mapping(entry.value(), "pipelines",
        "a map of pipeline names to pipelines");
    Map<String, Pipeline> pipelines = new LinkedHashMap<>();
    if (map.isPresent() && map.get().entries().isEmpty()) {
      problems.at(entry.key(), "pipelines is empty: define at least one pipeline, or remove the key "
          + "to use the built-in '" + Config.DEFAULT_PIPELINE + "' pipeline");
    }
    for (YamlNode.Entry pipeline : map.map(YamlNode.Mapping::entries).orElse(List.of())) {
      pipeline(pipeline).ifPresent(p -> pipelines.put(p.name(), p));
    }
    return pipelines;
  }

  private Optional<Pipeline> pipeline(YamlNode.Entry entry) {
    String name = entry.key().name();
    boolean ok = true;
    if (!Names.isValidName(name)) {
      problems.at(entry.key(), "bad pipeline name " + Quote.value(name) + ": " + Names.NAME_RULE);
      ok = false;
    }
    String label = "pipeline " + Quote.value(name);
    if (entry.value() instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      problems.at(entry.key(), label + " has no phases");
      return Optional.empty();
    }
    Optional<YamlNode.Mapping> map = values.mapping(entry.value(), label,
        "a map with phases and optional pre_phases");
    if (map.isEmpty()) {
      return Optional.empty();
    }
    problems.unknownKeys(map.get(), PIPELINE_KEYS, "key", label);
    Map<String, Integer> seen = new LinkedHashMap<>();
    Optional<List<PhaseDef>> prePhases = map.get().get("pre_phases")
        .map(n -> phases(n, name, "pre_phases", seen))
        .orElse(Optional.of(List.of()));
    Optional<YamlNode> phasesNode = map.get().get("phases");
    Optional<List<PhaseDef>> phases = phasesNode.map(n -> phases(n, name, "phases", seen))
        .orElse(Optional.of(List.of()));
    if (phases.isPresent() && phases.get().isEmpty()) {
      // absent, null or []: point at the pipeline's name, or at the empty list
      if (phasesNode.isPresent() && phasesNode.get() instanceof YamlNode.Sequence empty) {
        problems.at(empty, label + " has no phases");
      } else {
        problems.at(entry.key(), label + " has no phases");
      }
      ok = false;
    }
    if (!ok || prePhases.isEmpty() || phases.isEmpty()) {
      return Optional.empty();
    }
    Optional<List<ProjectCommand>> verify = map.get().get("verify").isPresent()
        ? projectCommands(map.get().get("verify").get(), "verify of " + label)
        : Optional.of(List.of());
    Optional<Pipeline.Review> review = map.get().get("review").isPresent()
        ? values.choice(map.get().get("review").get(), "review of " + label, Values.words(Pipeline.Review.values()))
        : Optional.of(Pipeline.Review.NONE);
    Optional<List<ProjectCommand>> integration = map.get().get("integration_verify").isPresent()
        ? projectCommands(map.get().get("integration_verify").get(), "integration_verify of " + label)
        : Optional.of(List.of());
    Optional<List<String>> guarded = map.get().get("verify_protected").isPresent()
        ? protectedPaths(map.get().get("verify_protected").get(), "verify_protected of " + label)
        : Optional.of(List.of());
    Optional<Integer> rounds = map.get().get("integration_max_rounds").isPresent()
        ? values.integer(map.get().get("integration_max_rounds").get(), "integration_max_rounds of " + label, 1, 100)
        : Optional.of(Pipeline.DEFAULT_INTEGRATION_MAX_ROUNDS);
    if (verify.isEmpty() || review.isEmpty() || integration.isEmpty() || rounds.isEmpty() || guarded.isEmpty()) {
      return Optional.empty();
    }
    Optional<Optional<Pipeline.ReviewTimeout>> timeout = reviewTimeout(map.get(), label, review.get());
    if (timeout.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Pipeline(name, prePhases.get(), phases.get(), profileRef(map.get(), label).orElse(null),
        fallbackRefs(map.get(), label), verify.get(), review.get(), timeout.get().orElse(null),
        map.get().get("integration_verify").isPresent() ? integration.get() : null, rounds.get(), guarded.get()));
  }

  /**
   * {@code review_timeout} (with {@code on_review_timeout}, default block): only beside
   * {@code review: required}, and the action only beside a timeout. Empty when wrong (reported).
   */
  private Optional<Optional<Pipeline.ReviewTimeout>> reviewTimeout(YamlNode.Mapping map, String label,
      Pipeline.Review review) {
    Optional<YamlNode> after = map.get("review_timeout");
    Optional<YamlNode> action = map.get("on_review_timeout");
    if (after.isEmpty()) {
      if (action.isPresent()) {
        problems.at(action.get(), "on_review_timeout of " + label + " needs review_timeout: the action is what "
            + "happens once an item has awaited review that long");
        return Optional.empty();
      }
      return Optional.of(Optional.empty());
    }
    if (review != Pipeline.Review.REQUIRED) {
      problems.at(after.get(), "review_timeout of " + label + " needs review: required (without it no item "
          + "awaits review)");
      return Optional.empty();
    }
    Optional<java.time.Duration> d = duration(after.get(), "review_timeout of " + label);
    Optional<Pipeline.TimeoutAction> a = action.isPresent()
        ? values.choice(action.get(), "on_review_timeout of " + label, Values.words(Pipeline.TimeoutAction.values()))
        : Optional.of(Pipeline.TimeoutAction.BLOCK);
    if (d.isEmpty() || a.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Optional.of(new Pipeline.ReviewTimeout(d.get(), a.get())));
  }

  /** The phases of one list, or empty if any of them is wrong (each wrong one is reported). */
  private Optional<List<PhaseDef>> phases(YamlNode node, String pipeline, String key,
      Map<String, Integer> seen) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, key + " of pipeline " + Quote.value(pipeline), "a list of phases");
      return Optional.empty();
    }
    List<PhaseDef> phases = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String path = "pipelines." + pipeline + "." + key + "[" + i + "]";
      Optional<PhaseDef> phase = phase(list.items().get(i), pipeline, path, seen);
      ok &= phase.isPresent();
      phase.ifPresent(phases::add);
    }
    return ok ? Optional.of(phases) : Optional.empty();
  }

  private Optional<PhaseDef> phase(YamlNode node, String pipeline, String path, Map<String, Integer> seen) {
    if (!(node instanceof YamlNode.Mapping map)) {
      problems.expected(node, path, "a map with name and instructions or workflow");
      return Optional.empty();
    }
    Optional<String> name = phaseName(map, pipeline, path, seen);
    String label = name.map(n -> "phase " + Quote.value(n) + " of pipeline " + Quote.value(pipeline)).orElse(path);
    problems.unknownKeys(map, PHASE_KEYS, "key", label);
    Optional<YamlNode> instructionsNode = map.get("instructions");
    Optional<YamlNode> workflowNode = map.get("workflow");
    boolean exactlyOne = instructionsNode.isPresent() != workflowNode.isPresent();
    if (!exactlyOne) {
      problems.at(map, label + (instructionsNode.isPresent()
          ? " has both instructions and workflow; keep one"
          : " needs instructions or a workflow"));
    }
    Optional<String> instructions = instructionsNode
        .flatMap(n -> values.nonBlank(n, "instructions in " + label, "non-empty text"));
    Optional<String> workflow = workflowNode.flatMap(this::workflow);
    Optional<Boolean> destructive = map.get("destructive").isPresent()
        ? values.bool(map.get("destructive").get(), "destructive in " + label)
        : Optional.of(false);
    Optional<List<ProjectCommand>> verify = map.get("verify").isPresent()
        ? projectCommands(map.get("verify").get(), "verify of " + label)
        : Optional.of(List.<ProjectCommand>of());
    Optional<PhaseDef.Changes> changes = map.get("changes").isPresent()
        ? values.choice(map.get("changes").get(), "changes in " + label, Values.words(PhaseDef.Changes.values()))
        : Optional.of(PhaseDef.Changes.OPTIONAL);
    Optional<Boolean> changesGates = map.get("changes_gates").isPresent()
        ? values.bool(map.get("changes_gates").get(), "changes_gates in " + label)
        : Optional.of(false);
    if (!exactlyOne || name.isEmpty() || (instructions.isEmpty() && workflow.isEmpty())
        || destructive.isEmpty() || verify.isEmpty() || changes.isEmpty() || changesGates.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PhaseDef(name.get(), instructions.orElse(null), workflow.orElse(null),
        destructive.get(), profileRef(map, label).orElse(null), fallbackRefs(map, label))
        .withVerify(map.get("verify").isPresent() ? verify.get() : null, changes.get())
        .withChangesGates(changesGates.get()));
  }

  private Optional<String> phaseName(YamlNode.Mapping map, String pipeline, String path,
      Map<String, Integer> seen) {
    Optional<YamlNode> node = map.get("name");
    if (node.isEmpty()) {
      problems.at(map, path + " has no name");
      return Optional.empty();
    }
    Optional<String> name = values.nonBlank(node.get(), "name in " + path, "a phase name");
    if (name.isEmpty()) {
      return Optional.empty();
    }
    if (!Names.isValidName(name.get())) {
      problems.at(node.get(), "bad phase name " + Quote.value(name.get()) + " in pipeline " + Quote.value(pipeline)
          + ": " + Names.NAME_RULE);
      return Optional.empty();
    }
    Integer first = seen.putIfAbsent(name.get(), node.get().line());
    if (first != null) {
      problems.at(node.get(), "duplicate phase " + Quote.value(name.get()) + " in pipeline " + Quote.value(pipeline)
          + " (first defined at line " + first + ")");
      return Optional.empty();
    }
    return name;
  }

  /** The workflow file, resolved against the config file's directory, as an absolute path. */
  private Optional<String> workflow(YamlNode node) {
    return values.nonBlank(node, "workflow", "a file path").flatMap(text -> {
      Path path;
      try {
        path = directory.resolve(text).normalize();
      } catch (java.nio.file.InvalidPathException e) {
        problems.at(node, "workflow " + Quote.value(text) + " is not a valid path");
        return Optional.empty();
      }
      if (Files.isDirectory(path)) {
        problems.at(node, "workflow " + Quote.value(text) + " is a directory, not a file (" + path + ")");
        return Optional.empty();
      }
      if (!Files.isRegularFile(path)) {
        problems.at(node, "workflow file " + Quote.value(text) + " not found (looked for " + path + ")");
        return Optional.empty();
      }
      return Optional.of(path.toString());
    });
  }

  String defaultPipeline(YamlNode.Mapping root, Map<String, Pipeline> pipelines) {
    // Names of every pipeline written in the file, valid or not, so that one broken pipeline
    // does not also produce a "not defined" problem here.
    List<String> declared = root.get("pipelines")
        .filter(YamlNode.Mapping.class::isInstance)
        .map(n -> ((YamlNode.Mapping) n).entries().stream().map(e -> e.key().name()).toList())
        .orElse(List.copyOf(pipelines.keySet()));
    Optional<YamlNode.Entry> entry = root.entry("default_pipeline");
    if (entry.isEmpty()) {
      if (!declared.isEmpty() && !declared.contains(Config.DEFAULT_PIPELINE)) {
        problems.at(root.entry("pipelines").orElseThrow().key(), "default_pipeline is not set and no "
            + "pipeline is named '" + Config.DEFAULT_PIPELINE + "'; set default_pipeline to one of: "
            + String.join(", ", declared));
      }
      return Config.DEFAULT_PIPELINE;
    }
    YamlNode node = entry.get().value();
    Optional<String> name = values.nonBlank(node, "default_pipeline", "a pipeline name");
    if (name.isPresent() && !declared.isEmpty() && !declared.contains(name.get())) {
      problems.at(node, "default_pipeline " + Quote.value(name.get()) + " is not a defined pipeline; defined "
          + "pipelines: " + String.join(", ", declared));
    }
    return name.orElse(Config.DEFAULT_PIPELINE);
  }

  /**
   * {@code verify_protected:}: paths of the repository (files, or directories ending in {@code /})
   * that an attempt may not change, like the files the gates run: relative, without {@code ..}.
   */
  private Optional<List<String>> protectedPaths(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, subject, "a list of paths, like [gates/, .github/workflows/, test/fixtures/]");
      return Optional.empty();
    }
    List<String> out = new java.util.ArrayList<>();
    boolean ok = true;
    for (YamlNode entry : list.items()) {
      Optional<String> path = values.nonBlank(entry, subject, "a path like gates/check.sh");
      if (path.isEmpty()) {
        ok = false;
      } else if (path.get().startsWith("/") || java.util.Arrays.asList(path.get().split("/")).contains("..")
          || path.get().startsWith(":")) {
        problems.at(entry, "bad path " + Quote.value(path.get()) + " in " + subject
            + ": give a path relative to the repository's top, without '..'");
        ok = false;
      } else if (path.get().chars().anyMatch(c -> c == '*' || c == '?' || c == '[')) {
        // the check compares the protected files' bytes with the commit's, listed by path: a pattern
        // would be matched one way by git status and another by that listing
        problems.at(entry, "bad path " + Quote.value(path.get()) + " in " + subject
            + ": no wildcards ('*', '?', '['); give the file, or the directory ending in '/' that holds them");
        ok = false;
      } else {
        out.add(path.get());
      }
    }
    return ok ? Optional.of(List.copyOf(out)) : Optional.empty();
  }
}
