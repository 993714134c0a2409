package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stderr appender builds its encoder on the first event, and then writes as it always did. */
class LogConfiguratorTest {
  @Test
  void a_warning_reaches_stderr_in_the_pattern_and_what_the_level_hides_does_not() {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter()); // as slf4j gives the real one
    new LogConfigurator().configure(context);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      context.getLogger("dev.orchestrate.Example").info("hidden at the default level");
      context.getLogger("dev.orchestrate.Example").warn("shown {}", 1);
      context.getLogger("dev.orchestrate.Other").error("and again");
    } finally {
      System.setErr(original);
      context.stop();
    }
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  Example: shown 1"), lines.get(0));
    assertTrue(lines.get(1).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ERROR Other: and again"), lines.get(1));
  }
}
