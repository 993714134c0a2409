package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The process's SLF4J binding answers level checks from the root level and starts logback only
 * for an event that level lets through; then logs as logback bound directly does.
 */
class DeferredLogbackTest {
  @Test
  void level_checks_follow_the_root_level_without_starting_logback() {
    DeferredLogback.Factory factory = new DeferredLogback.Factory();
    Logger logger = factory.getLogger("dev.orchestrate.Example");
    assertFalse(logger.isInfoEnabled());
    assertTrue(logger.isWarnEnabled());
    logger.debug("hidden {}", 1);
    logger.info("hidden");
    factory.setLevel(Level.DEBUG);
    assertTrue(logger.isDebugEnabled());
    assertFalse(logger.isTraceEnabled());
    factory.setLevel(Level.ERROR);
    assertFalse(logger.isWarnEnabled());
    assertTrue(logger.isErrorEnabled());
    logger.warn("hidden too");
    assertFalse(factory.started(), "nothing was logged, so logback did not start");
    assertEquals("dev.orchestrate.Example", logger.getName());
    assertTrue(logger == factory.getLogger("dev.orchestrate.Example"), "one logger per name");
  }

  @Test
  void the_first_event_the_level_lets_through_starts_logback_with_our_configuration_and_level() {
    DeferredLogback.Factory factory = new DeferredLogback.Factory();
    factory.setLevel(Level.INFO);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      Logger example = factory.getLogger("dev.orchestrate.Example");
      example.debug("hidden at info");
      assertFalse(factory.started());
      example.info("shown {} and {}", 1, "two");
      assertTrue(factory.started());
      factory.getLogger("dev.orchestrate.Other").error("failed", new IllegalStateException("boom"));
      factory.setLevel(Level.ERROR);
      example.warn("hidden at error, in logback too");
      factory.logback().getLogger("dev.orchestrate.Example").warn("hidden by logback's own root level");
    } finally {
      System.setErr(original);
      factory.logback().stop();
    }
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertTrue(lines.get(0).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  Example: shown 1 and two"), lines.toString());
    assertTrue(lines.get(1).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ERROR Other: failed"), lines.toString());
    assertEquals("java.lang.IllegalStateException: boom", lines.get(2));
    assertTrue(lines.stream().noneMatch(l -> l.contains("hidden")), lines.toString());
  }
}
