package dev.orchestrate;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The layering of the main code as a test: the arrows allowed between packages (the table in
 * docs/architecture.md, "imports" column), that only the storage touches JDBC, and that no two
 * packages depend on each other. Read from the compiled classes, so a fully-qualified name counts
 * as much as an import. A new package must be given its place here ({@link #everyClassHasALayer})
 * before its arrows are checked.
 *
 * <p>The arrows follow the intended layering ({@link #TIERS}): each points to a lower tier, and
 * each is one the code needs, so adding one is a decision, made here and in the doc's table together.
 */
@AnalyzeClasses(packages = "dev.orchestrate", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String ROOT = "dev.orchestrate";

  /** Each top-level package (and each of `state`'s subpackages) as a layer. */
  static final String[][] LAYERS = {
      {"error", "dev.orchestrate.error.."},
      {"limits", "dev.orchestrate.limits.."},
      {"yaml", "dev.orchestrate.yaml.."},
      {"config", "dev.orchestrate.config.."},
      {"backlog", "dev.orchestrate.backlog.."},
      {"memory", "dev.orchestrate.memory.."},
      {"outcome", "dev.orchestrate.outcome.."},
      {"item", "dev.orchestrate.item.."},
      {"context", "dev.orchestrate.context.."},
      {"jobs", "dev.orchestrate.jobs.."},
      {"scheduler", "dev.orchestrate.scheduler.."},
      {"workspace", "dev.orchestrate.workspace.."},
      {"landing", "dev.orchestrate.landing.."},
      {"retention", "dev.orchestrate.retention.."},
      {"stats", "dev.orchestrate.stats.."},
      {"notify", "dev.orchestrate.notify.."},
      {"state", "dev.orchestrate.state"},
      {"state.sql", "dev.orchestrate.state.sql.."},
      {"state.sqlite", "dev.orchestrate.state.sqlite.."},
      {"state.postgres", "dev.orchestrate.state.postgres.."},
      {"state.select", "dev.orchestrate.state.select.."},
      {"app", "dev.orchestrate.app.."},
      {"serve", "dev.orchestrate.serve.."},
      {"mcp", "dev.orchestrate.mcp.."},
      {"cli.live", "dev.orchestrate.cli.live.."},
      {"cli", "dev.orchestrate.cli"},
      {"root", ROOT}};

  private static String[] packages() {
    String[] packages = new String[LAYERS.length];
    for (int i = 0; i < LAYERS.length; i++) {
      packages[i] = LAYERS[i][1];
    }
    return packages;
  }

  /**
   * The arrows: each layer and the layers it may use, besides {@code error} (every package may use
   * the root of the failures reported to the user, {@code OrchestrateException}). The "imports"
   * column of docs/architecture.md's package table is checked against this map
   * ({@code ArchitectureDocTest}), so the doc and the rule cannot drift apart.
   *
   * <p>{@code app -> stats}, {@code serve -> backlog}, {@code serve -> workspace} and {@code mcp -> backlog} have no import:
   * the code calls methods of a value another call returned (StatsSource.recordSample,
   * BacklogItem.title, ...).
   */
  static final Map<String, List<String>> ARROWS = arrows(
      "error", List.of(),
      "limits", List.of(),
      "yaml", List.of("limits"),
      "outcome", List.of("limits"),
      "notify", List.of("limits", "yaml"),
      "config", List.of("limits", "notify", "yaml"),
      "backlog", List.of("config", "limits", "yaml"),
      "memory", List.of("limits"),
      "item", List.of("backlog", "config", "limits", "outcome"),
      "context", List.of("backlog", "config", "item", "limits"),
      "jobs", List.of("config", "limits", "outcome"),
      "workspace", List.of("config", "item", "limits"),
      "landing", List.of("config", "item", "jobs", "limits", "workspace"),
      "retention", List.of("config", "item", "limits"),
      "stats", List.of("config", "limits", "outcome"),
      "scheduler", List.of("backlog", "config", "context", "item", "jobs", "limits", "memory", "outcome", "yaml"),
      "state", List.of("config", "context", "item", "limits", "memory", "outcome", "retention", "stats", "workspace"),
      "state.sql", List.of("backlog", "config", "context", "item", "limits", "memory", "outcome", "retention", "state",
          "stats", "workspace"),
      "state.sqlite", List.of("state", "state.sql", "stats"),
      "state.postgres", List.of("state", "state.sql", "stats"),
      "state.select", List.of("state", "state.postgres", "state.sqlite"),
      "app", List.of("backlog", "config", "context", "item", "jobs", "landing", "limits", "memory", "notify", "outcome",
          "retention", "scheduler", "state", "stats", "workspace", "yaml"),
      "serve", List.of("app", "backlog", "config", "item", "limits", "memory", "outcome", "state", "stats",
          "workspace"),
      "mcp", List.of("app", "backlog", "config", "item", "limits", "outcome", "state", "stats", "workspace", "yaml"),
      "cli.live", List.of("backlog", "config", "context", "item", "limits", "outcome", "scheduler"),
      "cli", List.of("app", "backlog", "cli.live", "config", "context", "item", "jobs", "landing", "limits", "mcp",
          "memory", "notify", "outcome", "retention", "scheduler", "serve", "state", "state.select", "stats",
          "workspace",
          "yaml"),
      "root", List.of("cli"));

  /**
   * The intended layering, from the ground up (docs/architecture.md, "Layers"): a package may use
   * packages of lower tiers only, never one of its own tier (they stand side by side) or above.
   * {@link #ARROWS} narrows this to the arrows each package needs; {@link #arrowsNotDown} holds it
   * to the tiers, so an arrow up cannot be allowed by adding it to the map alone.
   */
  static final List<List<String>> TIERS = List.of(
      List.of("error", "limits"), // the ground: every package may stand on it
      List.of("yaml", "outcome", "memory"), // formats and values: YAML reading, an attempt's outcome and usage
      List.of("notify"), // telling someone; its sinks are part of the configuration
      List.of("config"),
      List.of("backlog"),
      List.of("item"), // the model and its ports
      List.of("context", "jobs", "workspace", "retention", "stats"), // capabilities, side by side
      List.of("landing"), // over a worktree's life
      List.of("scheduler", "state"), // the run loop; the storage port
      List.of("state.sql"),
      List.of("state.sqlite", "state.postgres"),
      List.of("state.select"),
      List.of("app"), // use cases
      List.of("serve", "mcp", "cli.live"),
      List.of("cli"),
      List.of("root"));

  /** The arrows of {@code arrows} that do not point to a lower tier of {@link #TIERS}, as "from -> to". */
  static List<String> arrowsNotDown(Map<String, List<String>> arrows) {
    Map<String, Integer> tier = new LinkedHashMap<>();
    for (int i = 0; i < TIERS.size(); i++) {
      for (String layer : TIERS.get(i)) {
        tier.put(layer, i);
      }
    }
    List<String> wrong = new ArrayList<>();
    arrows.forEach((from, targets) -> {
      for (String to : targets) {
        if (!tier.containsKey(from) || !tier.containsKey(to) || tier.get(to) >= tier.get(from)) {
          wrong.add(from + " -> " + to);
        }
      }
    });
    return wrong;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, List<String>> arrows(Object... pairs) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((String) pairs[i], (List<String>) pairs[i + 1]);
    }
    return Collections.unmodifiableMap(out);
  }

  /** The package pattern of {@code layer}, as {@link #LAYERS} gives it. */
  static String pattern(String layer) {
    for (String[] l : LAYERS) {
      if (l[0].equals(layer)) {
        return l[1];
      }
    }
    throw new IllegalArgumentException("no layer " + layer);
  }

  private static com.tngtech.archunit.library.Architectures.LayeredArchitecture layers() {
    var layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (String[] layer : LAYERS) {
      layers = layers.layer(layer[0]).definedBy(layer[1]);
    }
    for (Map.Entry<String, List<String>> arrow : ARROWS.entrySet()) {
      if (arrow.getKey().equals("error")) {
        layers = layers.whereLayer("error").mayNotAccessAnyLayer();
      } else {
        List<String> allowed = new ArrayList<>(arrow.getValue());
        allowed.add("error");
        layers = layers.whereLayer(arrow.getKey()).mayOnlyAccessLayers(allowed.toArray(String[]::new));
      }
    }
    return layers;
  }

  @ArchTest
  static final ArchRule everyClassHasALayer = classes().should().resideInAnyPackage(packages())
      .because("a package this test does not know would have no arrows checked");

  /** Each package and the packages it may use ({@link #ARROWS}): from `cli` down to `limits`, nothing back up. */
  @ArchTest
  static final ArchRule allowedArrows = layers();

  /** The run loop is used by the use cases and the commands, not by what it runs on. */
  @ArchTest
  static final ArchRule schedulerOnlyFromAbove = noClasses().that()
      .resideOutsideOfPackages("dev.orchestrate.scheduler..", "dev.orchestrate.app..", "dev.orchestrate.cli..")
      .should().dependOnClassesThat().resideInAPackage("dev.orchestrate.scheduler..");

  @ArchTest
  static final ArchRule onlyStateTouchesJdbc = noClasses().that().resideOutsideOfPackage("dev.orchestrate.state..")
      .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..")
      .because("the storage is one port (state.StateStore); SQL stays behind it");

  /**
   * No two packages depend on each other, directly or around a loop; no exception. (The preset
   * readers, which spoke {@code jobs}' {@code AgentOutcome} and {@code Usage} while {@code jobs} ran
   * them, live in {@code jobs} itself: one capability, one package.)
   */
  @ArchTest
  static final ArchRule noCycles = slices().matching("dev.orchestrate.(**)").should().beFreeOfCycles();

  /**
   * Command classes do not open stores: a command parses, calls a use case of {@code app} (which
   * opens the store through the port and returns result records) and renders. So nothing in
   * {@code cli} calls {@code StateBackend.open} or {@code openToRead}, nor touches a store at all.
   */
  @ArchTest
  static final ArchRule commandsDoNotOpenStores = noClasses().that().resideInAPackage("dev.orchestrate.cli..")
      .should()
      .callMethod(dev.orchestrate.state.StateBackend.class, "open", dev.orchestrate.state.StateStore.Mode.class)
      .orShould().callMethod(dev.orchestrate.state.StateBackend.class, "openToRead")
      .orShould().dependOnClassesThat().areAssignableTo(dev.orchestrate.state.StateStore.class)
      .because("the read side is app's use cases (issue 31, item 2): a command parses, calls one and renders");

  /**
   * Every exception type that is visible outside its class is a failure of orchestrate's, under the
   * root ({@code OrchestrateException}): its kind decides the exit code wherever it surfaces.
   */
  @ArchTest
  static final ArchRule exceptionsUnderTheRoot = classes().that().areAssignableTo(Throwable.class).and().arePublic()
      .should().beAssignableTo(dev.orchestrate.error.OrchestrateException.class)
      .because("one error root maps kinds to exit codes (docs/architecture.md, \"Errors\")");
}
