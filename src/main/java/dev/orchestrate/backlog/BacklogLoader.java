package dev.orchestrate.backlog;

import dev.orchestrate.config.Config;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.Sizes;
import dev.orchestrate.yaml.ValidationException;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import dev.orchestrate.yaml.YamlReader;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a backlog file (docs/backlog.md) into a validated {@link Backlog}: every item checked, every
 * dependency resolved, cycles named. All problems of the file are reported at once, each at its
 * line and column, before any work starts.
 */
public final class BacklogLoader {
  static final int SCHEMA_VERSION = 1;
  /** Longer cycles are shortened in their message (see {@link #describe}). */
  static final int MAX_NAMED_IN_CYCLE = 50;
  static final List<String> TOP_KEYS = List.of("schema_version", "items");
  public static final List<String> ITEM_KEYS = List.of("id", "title", "pipeline", "priority", "depends_on",
      "tags", "description", "status");

  private final Config config;
  private final Problems problems;
  private final Values values;
  /** The items read so far, in file order, and by id (the first of each id). */
  private final List<Draft> drafts = new ArrayList<>();
  private final Map<String, Draft> byId = new HashMap<>();

  /**
   * An item as read, kept even when some of its fields are wrong, for the cross-item checks. A
   * backlog of a million items holds a million of these at once: the label of messages is made
   * when a message needs it, and the id's place is two numbers, not its node.
   *
   * @param item the item, or null when one of its fields is wrong
   */
  private record Draft(String id, int line, int column, List<YamlNode> dependsOn, BacklogItem item) {
    String label() {
      return "item " + id;
    }
  }

  private BacklogLoader(Config config, Problems problems) {
    this.config = config;
    this.problems = problems;
    this.values = new Values(problems);
  }

  /**
   * Loads and validates a backlog against a config (for pipeline names and the default pipeline).
   *
   * @param file the file as the user named it; problems carry {@code file.toString()}
   * @throws ValidationException with every problem found, in file order
   */
  public static Backlog load(Path file, Config config) {
    Problems problems = new Problems(file.toString());
    long maxBytes = config.backlogMaxBytes();
    // Each item is checked as it is read, and its nodes let go (YamlReader.Streamed). What the
    // checks found counts only when the whole file parses: a syntax error is reported alone.
    Problems checks = new Problems(file.toString());
    BacklogLoader loader = new BacklogLoader(config, checks);
    Optional<List<BacklogItem>> items = YamlReader.read(file, problems, maxBytes,
        "split the backlog, shorten the longest descriptions, or raise backlog.max_bytes in the config",
        "split the backlog, or raise backlog.max_bytes in the config (" + Sizes.format(maxBytes)
            + " allows " + YamlReader.maxValues(maxBytes) + ")",
        new YamlReader.Streamed("items", loader::next))
        .flatMap(root -> {
          // The file's own problems first, as when the whole tree was read before the items were
          // checked: past Problems.MAX_KEPT item problems, an unsupported schema_version still shows.
          Optional<List<BacklogItem>> checked = loader.itemsList(root, problems).map(loader::items);
          problems.addAll(checks);
          return checked;
        });
    problems.throwIfAny();
    return new Backlog(file, items.orElseThrow());
  }

  /**
   * Validates items made from another source than a file (a command's JSON, {@link BacklogJson})
   * exactly as the file's are checked: each item, then the dependencies and cycles.
   *
   * @param file  the backlog's place, for {@link Backlog#directory}
   * @param label what problems name instead of a file: the command
   * @throws ValidationException with every problem found
   */
  static Backlog fromNodes(Path file, String label, List<YamlNode> nodes, Config config) {
    Problems problems = new Problems(label);
    BacklogLoader loader = new BacklogLoader(config, problems);
    List<BacklogItem> items = loader.items(new YamlNode.Sequence(0, 0, nodes));
    problems.throwIfAny();
    return new Backlog(file, items);
  }

  /** The next element of the items list, as the reader hands it over. */
  private void next(YamlNode node) {
    item(node, drafts.size() + skipped).ifPresentOrElse(drafts::add, () -> skipped++);
  }

  /** Elements of the items list without a usable id: they still count in the next one's index. */
  private int skipped;

  /**
   * The file's top-level checks, into {@code top}: the items list (empty for {@code items:} with
   * nothing), or empty when there is none to read.
   */
  private Optional<YamlNode.Sequence> itemsList(YamlNode root, Problems top) {
    if (!(root instanceof YamlNode.Mapping map)) {
      top.expected(root, "a backlog file", "a map with an items list");
      return Optional.empty();
    }
    top.unknownKeys(map, TOP_KEYS, "key", "the backlog");
    map.get("schema_version").ifPresent(node -> schemaVersion(node, top));
    Optional<YamlNode> itemsNode = map.get("items");
    if (itemsNode.isEmpty()) {
      top.at(map, "missing key 'items' (the list of work items)");
      return Optional.empty();
    }
    if (itemsNode.get() instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(new YamlNode.Sequence(scalar.line(), scalar.column(), List.of()));
    }
    if (!(itemsNode.get() instanceof YamlNode.Sequence list)) {
      top.expected(itemsNode.get(), "items", "a list of items");
      return Optional.empty();
    }
    return Optional.of(list);
  }

  /** The items of the list: its elements (none when streamed), checked, then checked together. */
  private List<BacklogItem> items(YamlNode.Sequence list) {
    list.items().forEach(this::next); // none when streamed, as the reader does for the first items key
    checkDependencies(drafts, byId);
    new Cycles(drafts, byId).report();
    List<BacklogItem> items = new ArrayList<>();
    for (Draft d : drafts) {
      if (d.item() != null) {
        items.add(d.item());
      }
    }
    return items;
  }

  private static void schemaVersion(YamlNode node, Problems problems) {
    boolean supported = node instanceof YamlNode.Scalar scalar
        && scalar.kind() == YamlNode.Scalar.Kind.INTEGER
        && scalar.integer().equals(BigInteger.valueOf(SCHEMA_VERSION));
    if (supported) {
      return;
    }
    String got = node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.INTEGER
        ? scalar.text() : node.describe();
    problems.at(node, "unsupported schema_version " + got + " (this version reads " + SCHEMA_VERSION + ")");
  }

  /** Reads one item; empty only when it has no usable id (its other problems are still reported). */
  private Optional<Draft> item(YamlNode node, int index) {
    String path = "items[" + index + "]";
    if (!(node instanceof YamlNode.Mapping map)) {
      problems.expected(node, path, "a map with id and title");
      return Optional.empty();
    }
    Optional<String> id = id(map, path);
    String label = id.map(i -> "item " + i).orElse(path);
    problems.unknownKeys(map, ITEM_KEYS, "field", label);
    Optional<String> title = title(map, label);
    Optional<String> pipeline = map.get("pipeline").isPresent()
        ? pipeline(map.get("pipeline").get(), label)
        : Optional.of(config.defaultPipeline());
    Optional<Priority> priority = optional(map, "priority", label, Priority.MEDIUM, Priority.values());
    Optional<InitialStatus> status = optional(map, "status", label, InitialStatus.NEW,
        InitialStatus.values());
    Optional<YamlNode> dependsOnNode = map.get("depends_on");
    Optional<List<String>> dependsOn = dependsOnNode
        .map(n -> values.strings(n, "depends_on", label, "item id"))
        .orElse(Optional.of(List.of()));
    Optional<List<String>> tags = map.get("tags")
        .map(n -> values.strings(n, "tags", label, "tag"))
        .orElse(Optional.of(List.of()));
    Optional<String> description = map.get("description")
        .map(n -> n instanceof YamlNode.Scalar s && s.isNull()
            ? Optional.of("") : values.text(n, "description in " + label, "text"))
        .orElse(Optional.of(""));
    if (id.isEmpty()) {
      return Optional.empty();
    }
    YamlNode idNode = map.get("id").orElseThrow();
    Draft first = byId.get(id.get());
    if (first != null) {
      problems.at(idNode, "duplicate id " + Quote.value(id.get()) + " (first defined at line "
          + first.line() + ")");
    }
    BacklogItem item = null;
    if (first == null && title.isPresent() && pipeline.isPresent() && priority.isPresent()
        && status.isPresent() && dependsOn.isPresent() && tags.isPresent() && description.isPresent()) {
      List<String> dependencies = dependsOn.get().isEmpty() ? List.of() : dependsOn.get().stream().distinct().toList();
      item = new BacklogItem(id.get(), title.get(), pipeline.get(), priority.get(), dependencies, tags.get(),
          description.get(), status.get());
    }
    List<YamlNode> dependencyNodes = dependsOn.isPresent()
        && dependsOnNode.orElse(null) instanceof YamlNode.Sequence list ? list.items() : List.of();
    Draft draft = new Draft(id.get(), idNode.line(), idNode.column(), dependencyNodes, item);
    byId.putIfAbsent(id.get(), draft);
    return Optional.of(draft);
  }

  private Optional<String> id(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("id");
    if (node.isEmpty() || (node.get() instanceof YamlNode.Scalar s && (s.isNull() || s.text().isBlank()))) {
      problems.at(node.orElse(map), path + " has no id");
      return Optional.empty();
    }
    Optional<String> id = values.text(node.get(), "id in " + path, "an id like WRK-001");
    if (id.isPresent() && id.get().length() > BacklogItem.MAX_ID_CHARS) {
      problems.at(node.get(), "id " + Quote.value(id.get()) + " is longer than " + BacklogItem.MAX_ID_CHARS
          + " characters; shorten it (ids name the job directories)");
      return Optional.empty();
    }
    if (id.isPresent() && !Names.isValid(id.get())) {
      problems.at(node.get(), "bad id " + Quote.value(id.get()) + ": " + Names.RULE);
      return Optional.empty();
    }
    return id;
  }

  private Optional<String> title(YamlNode.Mapping map, String label) {
    Optional<YamlNode> node = map.get("title");
    if (node.isEmpty() || (node.get() instanceof YamlNode.Scalar s && s.isNull())) {
      problems.at(node.orElse(map), label + " has no title");
      return Optional.empty();
    }
    Optional<String> title = values.text(node.get(), "title in " + label, "text");
    if (title.isPresent() && title.get().isBlank()) {
      problems.at(node.get(), label + " has a blank title");
      return Optional.empty();
    }
    return title;
  }

  private Optional<String> pipeline(YamlNode node, String label) {
    Optional<String> name = values.nonBlank(node, "pipeline in " + label, "a pipeline name");
    if (name.isPresent() && !config.pipelines().containsKey(name.get())) {
      problems.at(node, "unknown pipeline " + Quote.value(name.get()) + " in " + label + "; defined pipelines: "
          + String.join(", ", config.pipelines().keySet()));
      return Optional.empty();
    }
    return name;
  }

  private <E extends Enum<E>> Optional<E> optional(YamlNode.Mapping map, String key, String label,
      E fallback, E[] constants) {
    return map.get(key).isPresent()
        ? values.choice(map.get(key).get(), key + " in " + label, Values.words(constants))
        : Optional.of(fallback);
  }

  /** Every {@code depends_on} entry must name another item of this backlog. */
  private void checkDependencies(List<Draft> drafts, Map<String, Draft> byId) {
    for (Draft draft : drafts) {
      for (YamlNode dependency : draft.dependsOn()) {
        String target = ((YamlNode.Scalar) dependency).text();
        if (target.equals(draft.id())) {
          problems.at(dependency, draft.label() + " depends on itself");
        } else if (!byId.containsKey(target)) {
          problems.at(dependency, draft.label() + " depends on unknown item " + Quote.value(target));
        }
      }
    }
  }

  /**
   * Finds dependency cycles with an iterative depth-first search (a chain of 10,000 items must not
   * overflow the stack). Each back edge closes one distinct cycle, reported once, starting at its
   * item that comes first in the file and located at that item's {@code depends_on} entry.
   */
  private final class Cycles {
    private final List<Draft> drafts;
    private final Map<String, Draft> byId;
    /** Each id's position in the file, made at the first cycle (most backlogs have none). */
    private Map<String, Integer> order;
    private final Map<String, Integer> onStack = new HashMap<>();
    private final Map<String, Boolean> finished = new HashMap<>();
    private final Set<List<String>> reported = new HashSet<>();

    Cycles(List<Draft> drafts, Map<String, Draft> byId) {
      this.drafts = drafts;
      this.byId = byId;
    }

    /** A search starts only at an item with dependencies: one without closes no cycle. */
    void report() {
      for (Draft draft : drafts) {
        if (!draft.dependsOn().isEmpty() && byId.get(draft.id()) == draft && !finished.containsKey(draft.id())) {
          search(draft);
        }
      }
    }

    private void search(Draft start) {
      List<Draft> stack = new ArrayList<>();
      List<Integer> next = new ArrayList<>();
      stack.add(start);
      next.add(0);
      onStack.put(start.id(), 0);
      while (!stack.isEmpty()) {
        int top = stack.size() - 1;
        Draft current = stack.get(top);
        int edge = next.get(top);
        if (edge == current.dependsOn().size()) {
          stack.remove(top);
          next.remove(top);
          onStack.remove(current.id());
          finished.put(current.id(), true);
          continue;
        }
        next.set(top, edge + 1);
        String target = ((YamlNode.Scalar) current.dependsOn().get(edge)).text();
        Draft dependency = byId.get(target);
        if (dependency == null || dependency == current || finished.containsKey(target)) {
          continue;
        }
        Integer position = onStack.get(target);
        if (position != null) {
          cycle(stack.subList(position, stack.size()));
        } else {
          onStack.put(target, stack.size());
          stack.add(dependency);
          next.add(0);
        }
      }
    }

    private void cycle(List<Draft> members) {
      if (order == null) {
        order = new HashMap<>();
        for (int i = 0; i < drafts.size(); i++) {
          order.putIfAbsent(drafts.get(i).id(), i);
        }
      }
      int first = 0;
      for (int i = 1; i < members.size(); i++) {
        if (order.get(members.get(i).id()) < order.get(members.get(first).id())) {
          first = i;
        }
      }
      List<String> names = new ArrayList<>();
      for (int i = 0; i <= members.size(); i++) {
        names.add(members.get((first + i) % members.size()).id());
      }
      if (!reported.add(names)) {
        return;
      }
      Draft start = members.get(first);
      String successor = names.get(1);
      Optional<YamlNode> at = start.dependsOn().stream()
          .filter(n -> ((YamlNode.Scalar) n).text().equals(successor))
          .findFirst();
      if (at.isPresent()) {
        problems.at(at.get(), describe(names));
      } else {
        problems.add(start.line(), start.column(), describe(names));
      }
    }
  }

  /**
   * {@code dependency cycle: A -> B -> C -> A}; a cycle too long to read on one line keeps its
   * first and last members and says how many are left out.
   */
  static String describe(List<String> cycle) {
    int members = cycle.size() - 1;
    if (members <= MAX_NAMED_IN_CYCLE) {
      return "dependency cycle: " + String.join(" -> ", cycle);
    }
    int head = 20;
    int tail = 10;
    return "dependency cycle of " + members + " items: "
        + String.join(" -> ", cycle.subList(0, head))
        + " -> ... " + (members - head - tail) + " more ... -> "
        + String.join(" -> ", cycle.subList(members - tail, cycle.size()));
  }
}
