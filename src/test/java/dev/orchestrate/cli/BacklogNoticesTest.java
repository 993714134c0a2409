package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.SyncResult;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogNoticesTest {

  @Test
  void every_run_listener_callback_reaches_the_progress_display() {
    // BacklogNotices sits in front of the progress display: a callback it does not override is lost.
    List<String> missing = new ArrayList<>();
    for (Method m : RunListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      try {
        BacklogNotices.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(m.getName());
      }
    }
    assertEquals(List.of(), missing);
  }

  @Test
  void a_reload_is_described_by_what_changed() {
    assertEquals("2 added, 1 no longer listed",
        BacklogNotices.describe(new SyncResult(List.of("A", "B"), List.of("C"), List.of())));
    assertEquals("1 back in the backlog", BacklogNotices.describe(new SyncResult(List.of(), List.of(), List.of("R"))));
    assertEquals("no items added or removed", BacklogNotices.describe(SyncResult.NONE));
  }
}
