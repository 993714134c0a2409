package dev.orchestrate.state.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A runner's registration, heartbeat and maintenance lock on a real PostgreSQL state. */
class PostgresRunnerTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  /** Beats every 200 ms. */
  private static final Duration TIMEOUT = Duration.ofMillis(600);

  @TempDir
  Path dir;

  private String schema;
  private PostgresBackend backend;

  @BeforeEach
  void fresh() {
    schema = EmbeddedPostgresServer.freshSchema("runner");
    backend = TestBackend.on(schema, "host-a", dir);
  }

  @Test
  void a_runner_registers_as_host_pid_start_beats_and_deregisters_on_close() throws Exception {
    RunLease lease = backend.acquireLease(T0, TIMEOUT);
    String id = lease.runnerId();
    assertTrue(id.startsWith("host-a:" + ProcessHandle.current().pid() + ":"), id);
    assertEquals("host-a", lease.host());
    assertEquals("host-a|" + ProcessHandle.current().pid() + "|"
        + dir.resolve("state").resolve("jobs").toAbsolutePath().normalize(),
        EmbeddedPostgresServer.text(schema,
            "SELECT host || '|' || pid || '|' || logs_dir FROM runners WHERE id = '" + id + "'"));
    long first = Long
        .parseLong(EmbeddedPostgresServer.text(schema, "SELECT heartbeat_at FROM runners WHERE id = '" + id + "'"));
    await(
        () -> Long.parseLong(
            EmbeddedPostgresServer.text(schema, "SELECT heartbeat_at FROM runners WHERE id = '" + id + "'")) > first,
        "the heartbeat advances");
    assertTrue(backend.leaseHeld());
    lease.close();
    assertEquals("0", EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM runners"));
    assertFalse(backend.leaseHeld());
  }

  @Test
  void a_runner_taken_for_dead_registers_again_at_its_next_beat() throws Exception {
    try (RunLease lease = backend.acquireLease(T0, TIMEOUT)) {
      EmbeddedPostgresServer.execute(schema, "DELETE FROM runners WHERE id = '" + lease.runnerId() + "'"); // another runner took it over
      await(
          () -> "1".equals(EmbeddedPostgresServer.text(schema,
              "SELECT count(*) FROM runners WHERE id = '" + lease.runnerId() + "'")),
          "registered again");
    }
  }

  @Test
  void a_runner_whose_heartbeat_session_dies_connects_again_and_beats_on() throws Exception {
    try (RunLease lease = backend.acquireLease(T0, TIMEOUT)) {
      EmbeddedPostgresServer.execute(schema,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'orchestrate run:%'");
      long killed = Long.parseLong(
          EmbeddedPostgresServer.text(schema, "SELECT " + "(extract(epoch from clock_timestamp()) * 1000)::bigint"));
      await(
          () -> Long.parseLong(EmbeddedPostgresServer.text(schema,
              "SELECT heartbeat_at FROM runners WHERE id = '" + lease.runnerId() + "'")) > killed,
          "beats again on a new session");
    }
  }

  @Test
  void one_runner_at_a_time_holds_the_maintenance_lock_and_another_takes_it_when_it_goes() throws Exception {
    RunLease first = backend.acquireLease(T0, TIMEOUT);
    try (RunLease second = backend.acquireLease(T0, TIMEOUT)) {
      assertTrue(first.maintains());
      assertFalse(second.maintains());
      Thread.sleep(TIMEOUT.toMillis());
      assertFalse(second.maintains(), "not while the first holds it");
      first.close();
      await(second::maintains, "the second takes it at its next beat");
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 15 s: " + what);
      }
      Thread.sleep(50);
    }
  }

}
