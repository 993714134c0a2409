package dev.orchestrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import dev.orchestrate.item.PlantedViolations;
import dev.orchestrate.planted.Unplaced;
import dev.orchestrate.scheduler.PlantedCycle;
import dev.orchestrate.scheduler.Scheduler;
import dev.orchestrate.state.StateBackend;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Each rule of {@link ArchitectureTest} fails on a violation planted for it, so none holds vacuously. */
class ArchitectureRulesTest {
  /** A public exception outside the error root. */
  public static final class PlantedException extends RuntimeException {
    public PlantedException(String message) {
      super(message);
    }
  }

  @Test
  void an_exception_outside_the_root_is_refused() {
    JavaClasses planted = new ClassFileImporter().importClasses(PlantedException.class);
    AssertionError refused = assertThrows(AssertionError.class,
        () -> ArchitectureTest.exceptionsUnderTheRoot.check(planted));
    assertTrue(refused.getMessage().contains("PlantedException"), refused.getMessage());
  }

  @Test
  void an_exception_under_the_root_passes() {
    ArchitectureTest.exceptionsUnderTheRoot.check(new ClassFileImporter()
        .importClasses(dev.orchestrate.item.LeaseLostException.class,
            dev.orchestrate.error.OrchestrateException.class));
  }

  private static void refuses(ArchRule rule, String expected, Class<?>... classes) {
    JavaClasses planted = new ClassFileImporter().importClasses(classes);
    AssertionError refused = assertThrows(AssertionError.class, () -> rule.check(planted));
    assertTrue(refused.getMessage().contains(expected), refused.getMessage());
  }

  @Test
  void a_class_in_a_package_without_a_layer_is_refused() {
    refuses(ArchitectureTest.everyClassHasALayer, "Unplaced", Unplaced.class);
  }

  @Test
  void the_model_using_the_run_loop_is_an_arrow_up() {
    refuses(ArchitectureTest.allowedArrows, "UsesTheScheduler", PlantedViolations.UsesTheScheduler.class,
        Scheduler.class);
  }

  @Test
  void the_scheduler_used_from_below_is_refused() {
    refuses(ArchitectureTest.schedulerOnlyFromAbove, "UsesTheScheduler", PlantedViolations.UsesTheScheduler.class,
        Scheduler.class);
  }

  @Test
  void jdbc_in_a_command_is_refused() {
    refuses(ArchitectureTest.onlyStateTouchesJdbc, "UsesJdbc",
        classNamed("dev.orchestrate.cli.PlantedCommands$UsesJdbc"));
  }

  @Test
  void a_command_opening_a_store_is_refused() {
    refuses(ArchitectureTest.commandsDoNotOpenStores, "OpensAStore",
        classNamed("dev.orchestrate.cli.PlantedCommands$OpensAStore"), StateBackend.class);
  }

  @Test
  void two_packages_using_each_other_are_a_cycle() {
    refuses(ArchitectureTest.noCycles, "Cycle detected", PlantedViolations.HalfOfACycle.class, PlantedCycle.class);
  }

  @Test
  void every_allowed_arrow_points_down_the_tiers_and_every_layer_has_one_tier() {
    assertEquals(List.of(), ArchitectureTest.arrowsNotDown(ArchitectureTest.ARROWS));
    List<String> tiered = new ArrayList<>();
    ArchitectureTest.TIERS.forEach(tiered::addAll);
    List<String> layers = new ArrayList<>();
    for (String[] layer : ArchitectureTest.LAYERS) {
      layers.add(layer[0]);
    }
    assertEquals(new TreeSet<>(layers), new TreeSet<>(tiered));
    assertEquals(layers.size(), tiered.size(), "a layer in two tiers: " + tiered);
  }

  @Test
  void an_arrow_up_or_sideways_in_the_map_is_refused() {
    Map<String, List<String>> planted = new LinkedHashMap<>(ArchitectureTest.ARROWS);
    planted.put("item", List.of("config", "scheduler"));
    planted.put("jobs", List.of("workspace"));
    assertEquals(List.of("item -> scheduler", "jobs -> workspace"), ArchitectureTest.arrowsNotDown(planted));
  }

  private static Class<?> classNamed(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }
}
