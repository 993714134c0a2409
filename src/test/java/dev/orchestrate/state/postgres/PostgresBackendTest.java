package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreInterruptedException;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the PostgreSQL backend does beyond the contract: its write lock, its connections, its maintenance. */
class PostgresBackendTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @TempDir
  Path dir;

  private String schema;
  private PostgresBackend backend;

  @BeforeEach
  void fresh() {
    schema = EmbeddedPostgresServer.freshSchema("backend");
    backend = TestBackend.on(schema, "runner-1", dir);
  }

  /** Holds the state's write lock in a session of its own (as another process's write would) until released. */
  private Thread holdWriteLock(CountDownLatch held, CountDownLatch release) {
    Thread t = new Thread(() -> {
      try (Connection c = EmbeddedPostgresServer.connect(); Statement st = c.createStatement()) {
        c.setAutoCommit(false);
        st.execute("SELECT pg_advisory_xact_lock(" + Locks.WRITE + ", " + Locks.key(schema) + ")");
        held.countDown();
        release.await(60, TimeUnit.SECONDS);
        c.commit();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, "lock-holder");
    t.start();
    return t;
  }

  @Test
  void a_write_waits_for_the_write_lock_another_session_holds_says_so_once_and_loses_nothing() throws Exception {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      List<String> told = new CopyOnWriteArrayList<>();
      store.busyWait(new BusyWait(told::add, () -> false, 300));
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = holdWriteLock(held, release);
      assertTrue(held.await(30, TimeUnit.SECONDS));
      Thread releaser = new Thread(() -> {
        try {
          Thread.sleep(1_500);
        } catch (InterruptedException e) {
          return;
        }
        release.countDown();
      });
      releaser.start();

      store.items().sync(List.of(item("A")), T0); // a transaction
      store.items().runStarted(T0, 1); // a write of its own
      holder.join();
      assertEquals(1, told.size(), told.toString());
      assertEquals("orchestrate: warning: state database " + EmbeddedPostgresServer.location(schema)
          + " is locked by another process; waiting\u2026 (Ctrl-C to stop)", told.get(0));
      assertEquals(List.of("A"), store.items().items().stream().map(i -> i.id()).toList());
      assertTrue(store.items().lastRun().isPresent());
    }
  }

  @Test
  void a_stop_ends_the_wait_for_the_write_lock_and_nothing_is_half_written() throws Exception {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      AtomicBoolean stop = new AtomicBoolean();
      store.busyWait(new BusyWait(line -> {}, stop::get, 10_000));
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = holdWriteLock(held, release);
      assertTrue(held.await(30, TimeUnit.SECONDS));
      new Thread(() -> {
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          return;
        }
        stop.set(true);
      }).start();

      StoreInterruptedException e = assertThrows(StoreInterruptedException.class,
          () -> store.items().sync(List.of(item("A")), T0));
      assertTrue(e.getMessage().startsWith("state database " + EmbeddedPostgresServer.location(schema)
          + " is locked by another process"), e.getMessage());
      release.countDown();
      holder.join();
      assertEquals(List.of(), store.items().items());
      stop.set(false);
      store.items().sync(List.of(item("B")), T0);
      assertEquals(List.of("B"), store.items().items().stream().map(i -> i.id()).toList(), "the store works on");
    }
  }

  @Test
  void stores_connect_as_orchestrate_with_the_schema_as_search_path() throws Exception {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      store.items().sync(List.of(item("A")), T0);
      assertTrue(count("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'orchestrate'") >= 1);
      assertEquals(1, count("SELECT COUNT(*) FROM " + schema + ".items"));
      assertEquals(0, count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
          + " AND table_name = 'items'"), "nothing created outside the schema");
    }
  }

  @Test
  void a_read_only_store_runs_read_only_transactions() throws Exception {
    backend.open(StateStore.Mode.READ_WRITE).close();
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      var e = assertThrows(dev.orchestrate.state.StoreException.class, () -> store.items().runStarted(T0, 1));
      assertTrue(e.getMessage().contains("read-only transaction"), e.getMessage());
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
    assertEquals(0, count("SELECT COUNT(*) FROM " + schema + ".runs"));
  }

  @Test
  void the_orphan_sweep_reads_more_job_rows_than_one_fetch_and_keeps_every_referenced_directory() throws Exception {
    StateDirectory state = backend.directory();
    int jobs = PostgresDialect.FETCH_SIZE * 2 + 7;
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      long run = store.items().runStarted(T0, 1);
      for (int i = 1; i <= jobs; i++) {
        Path log = state.jobs().resolve(String.format("run1-%04d-A-build-1", i)).resolve("output.log");
        long job = store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, log));
        if (i % 500 == 0) {
          store.items().jobEnded(job, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0), null, T0);
        }
      }
    }
    List<Path> referenced = new ArrayList<>();
    for (int i = 1; i <= jobs; i += 250) {
      referenced.add(Files.createDirectories(state.jobs().resolve(String.format("run1-%04d-A-build-1", i))));
    }
    Path orphan = Files.createDirectories(state.jobs().resolve("run1-9999-A-build-1"));
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      assertEquals(new OrphanSweep(1, 1), store.retention().sweepOrphanJobDirectories(false));
    }
    assertFalse(Files.exists(orphan));
    assertTrue(referenced.stream().allMatch(Files::isDirectory));
  }

  @Test
  void a_large_compaction_rebuilds_the_memory_indexes_exactly_as_the_schema_defines_them() throws Exception {
    int n = 25_000; // over the store's threshold (20,000) for dropping and rebuilding the indexes
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(new NewMemory(i == 7 ? "fact" : "m" + i, i == 7 ? MemoryKind.SEMANTIC : MemoryKind.EPISODIC, null,
          "c" + i, List.of(), null));
    }
    String indexes = "SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = '"
        + schema + "' AND tablename = 'memories'";
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      String before = text(indexes);
      store.memory().importAll(all.iterator(), T0);
      assertEquals(n - 11, store.memory().compact(10, T0).deleted());
      assertEquals(11, store.memory().listActive(null, null).size());
      assertEquals("fact", store.memory().listActive(null, null).get(0).id());
      store.memory().put(new NewMemory("fact", MemoryKind.SEMANTIC, null, "updated", List.of(), null), T0);
      assertEquals("updated", store.memory().get("fact").orElseThrow().content(), "the upsert found its unique index");
      assertEquals(before, text(indexes));
    }
    assertThrows(java.sql.SQLException.class, () -> count("INSERT INTO " + schema + ".memories (seq, id, kind,"
        + " content, created_at, load_bearing) VALUES (999999, 'fact', 'semantic', 'dup', 0, 1) RETURNING 1"));
  }

  private static String text(String sql) throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long count(String sql) throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
