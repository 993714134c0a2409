package dev.orchestrate.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command sink with real /bin/sh scripts. */
class CommandSinkTest {
  private static final Instant T = Instant.parse("2026-11-26T10:00:00Z");

  @TempDir
  Path dir;

  private static NotifySink.Command shell(String script, Duration timeout) {
    return new NotifySink.Command("cmd", List.of("/bin/sh", "-c", script), EnumSet.allOf(EventKind.class), timeout);
  }

  @Test
  void the_document_arrives_on_stdin_and_exit_0_is_a_delivery() throws Exception {
    Notifier notifier = new Notifier(List.of(new CommandSink(shell("cat >> received.json; echo >> received.json",
        Duration.ofSeconds(10)), dir)), t -> t, Clock.systemUTC(), 10);
    NotificationEvent done = NotificationEvent.of(EventKind.ITEM_DONE, "A", "run-9", T);
    NotificationEvent halted = new NotificationEvent(EventKind.RUN_HALTED, null, "run-9", T, Map.of("reason", "cap"));

    notifier.publish(done);
    notifier.publish(halted);
    DeliveryStats stats = notifier.close(Duration.ofSeconds(20));

    assertEquals(List.of(done.toJson("run-9-1"), halted.toJson("run-9-2")),
        Files.readAllLines(dir.resolve("received.json")));
    assertEquals(2, stats.delivered());
  }

  /**
   * Issue 43: a command orchestrate runs is in a session of its own, so a Ctrl-C at the terminal
   * reaches orchestrate (which stops it with its tree), not the command behind its back; and it
   * gets the environment it was given, without what orchestrate withholds.
   */
  @Test
  void the_command_runs_in_a_session_of_its_own_with_the_environment_it_was_given() throws Exception {
    CommandSink sink = new CommandSink(shell("cat > /dev/null; cut -d')' -f2 /proc/$$/stat | cut -d' ' -f5 > sid; "
        + "echo \"${HOOK_SIGNING-unset} $KEPT\" > env", Duration.ofSeconds(10)), dir, Map.of("KEPT", "yes", "PATH",
            System.getenv("PATH")));
    NotificationEvent event = NotificationEvent.of(EventKind.ITEM_DONE, "A", "r", T);

    sink.deliver(event, "r-1", event.toJson("r-1"));

    String self = Files.readString(Path.of("/proc/self/stat"));
    long ours = Long.parseLong(self.substring(self.lastIndexOf(')') + 2).split(" ")[3]);
    assertNotEquals(ours, Long.parseLong(Files.readString(dir.resolve("sid")).strip()));
    assertEquals("unset yes", Files.readString(dir.resolve("env")).strip());
  }

  @Test
  void a_failing_command_is_a_failure_with_the_end_of_its_output() {
    CommandSink sink = new CommandSink(shell("cat > /dev/null; i=0; while [ $i -lt 500 ]; do echo \"line $i\"; "
        + "i=$((i+1)); done; echo 'hook refused' >&2; exit 3", Duration.ofSeconds(10)), dir);
    NotificationEvent event = NotificationEvent.of(EventKind.ITEM_DONE, "A", "r", T);

    DeliveryException e = assertThrows(DeliveryException.class, () -> sink.deliver(event, "r-1", event.toJson("r-1")));

    assertTrue(e.getMessage().startsWith("exit 3: "), e.getMessage());
    assertTrue(e.getMessage().endsWith("line 499\nhook refused"), e.getMessage());
    assertTrue(e.getMessage().length() <= "exit 3: ".length() + CommandSink.OUTPUT_TAIL_CHARS, e.getMessage());
  }

  @Test
  void a_command_that_hangs_is_killed_with_its_children_at_the_timeout() throws Exception {
    CommandSink sink = new CommandSink(shell("echo $$ > sh.pid; sleep 300 & echo $! > child.pid; wait",
        Duration.ofMillis(700)), dir);
    NotificationEvent event = NotificationEvent.of(EventKind.ITEM_DONE, "A", "r", T);

    long start = System.nanoTime();
    DeliveryException e = assertThrows(DeliveryException.class, () -> sink.deliver(event, "r-1", event.toJson("r-1")));
    long took = System.nanoTime() - start;

    assertTrue(e.getMessage().startsWith("timed out after"), e.getMessage());
    assertTrue(took < Duration.ofSeconds(8).toNanos(), "took " + took / 1_000_000 + " ms");
    for (String file : List.of("sh.pid", "child.pid")) {
      long pid = Long.parseLong(Files.readString(dir.resolve(file)).strip());
      assertTrue(gone(pid), file + " " + pid + " still runs");
    }
  }

  @Test
  void a_program_that_does_not_exist_is_a_failure_not_an_exception() {
    CommandSink sink = new CommandSink(new NotifySink.Command("cmd", List.of(dir.resolve("nope").toString()),
        EnumSet.of(EventKind.ITEM_DONE), Duration.ofSeconds(5)), dir);
    NotificationEvent event = NotificationEvent.of(EventKind.ITEM_DONE, "A", "r", T);

    DeliveryException e = assertThrows(DeliveryException.class, () -> sink.deliver(event, "r-1", event.toJson("r-1")));

    assertTrue(e.getMessage().startsWith("cannot start "), e.getMessage());
  }

  /** Not running: exited, or a zombie waiting for a parent that is not ours to reap it. */
  private static boolean gone(long pid) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      Path stat = Path.of("/proc/" + pid + "/stat");
      if (!Files.exists(stat)) {
        return true;
      }
      String text;
      try {
        text = Files.readString(stat);
      } catch (java.io.IOException e) {
        return true;
      }
      // The state follows the command name in parentheses: "123 (sleep) Z ...".
      if (text.substring(text.lastIndexOf(')') + 2).startsWith("Z")) {
        return true;
      }
      Thread.sleep(50);
    }
    return false;
  }
}
