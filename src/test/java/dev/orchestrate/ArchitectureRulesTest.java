package dev.orchestrate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
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
}
