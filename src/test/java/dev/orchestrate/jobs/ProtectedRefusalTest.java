package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The check of the gates' files before they run ({@link JobRequest.Steps#protectedRefusal}): its
 * answer passed on, none without a check, and a check that could not be made refusing (an agent
 * could break what it reads, then have its gate put everything back as it runs).
 */
class ProtectedRefusalTest {
  private static JobRequest.Steps steps(java.util.function.Supplier<String> check) {
    return new JobRequest.Steps(List.of(), null, null, List.of(), null, check);
  }

  @Test
  void the_answer_is_passed_on_and_no_check_refuses_nothing() {
    assertNull(steps(null).protectedRefusal());
    assertNull(steps(() -> null).protectedRefusal());
    assertEquals("changed gates/check.sh", steps(() -> "changed gates/check.sh").protectedRefusal());
  }

  @Test
  void a_check_that_could_not_be_made_refuses() {
    String refused = steps(() -> {
      throw new IllegalStateException("git status failed: not a git repository");
    }).protectedRefusal();
    assertTrue(refused != null && refused.contains("could not be checked") && refused.contains("not a git repository")
        && refused.contains("did not run"), refused);
  }
}
