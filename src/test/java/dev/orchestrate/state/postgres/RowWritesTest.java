package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The locking rules of {@link PostgresDialect} on a real server, several runners in one test: claims
 * and the writes of held items take the shared form of the write lock and lock only their rows, so
 * runners working on different items do not wait for each other; claims of one item, and promotions
 * under {@code max_wip}, still exclude each other under real concurrency; a write of the whole state
 * still waits for the row writes in progress.
 */
class RowWritesTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  /** The one-key advisory lock the gate trigger waits for (another lock space than {@link Locks}'). */
  private static final long GATE = 424_242;

  @TempDir
  Path dir;

  private String schema;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void fresh() {
    schema = EmbeddedPostgresServer.freshSchema("rows");
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private record Runner(RunLease lease, StateStore store, ItemLeases leases) {
  }

  private Runner runner(int n) {
    PostgresBackend backend = TestBackend.on(schema, "host-" + n, dir.resolve("r" + n));
    RunLease lease = backend.acquireLease(T0, TIMEOUT);
    open.add(lease);
    StateStore store = backend.open(StateStore.Mode.READ_WRITE);
    open.add(store);
    return new Runner(lease, store, store.leases(lease.runnerId(), lease.host(), TIMEOUT));
  }

  private static List<BacklogItem> ready(String prefix, int count) {
    List<BacklogItem> items = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      items.add(item(prefix + i, InitialStatus.READY));
    }
    return items;
  }

  private static Step to(ItemState item, ItemStatus status, String phase) {
    return new Step(item.with(new Progress(status, phase, 0, null, null, null, null, null)), List.of());
  }

  /**
   * The locks of the advisory kind of the write lock of this state, as {@code mode:granted} rows:
   * {@code ShareLock:true} is a row write holding it, {@code ExclusiveLock:false} a write of the
   * whole state waiting for it.
   */
  private List<String> writeLocks() throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = EmbeddedPostgresServer.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT mode, granted FROM pg_locks WHERE locktype = 'advisory'"
            + " AND classid = " + Locks.WRITE + " AND objid = " + Locks.key(schema) + " AND objsubid = 2"
            + " ORDER BY mode, granted")) {
      while (rs.next()) {
        out.add(rs.getString(1) + ":" + rs.getBoolean(2));
      }
    }
    return out;
  }

  /** How many sessions wait for the gate (a row write stopped in the middle of its transaction). */
  private static int waitingAtGate() throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
            + " AND objsubid = 1 AND objid = " + GATE + " AND NOT granted")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void until(String what, java.util.concurrent.Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never: " + what);
      }
      Thread.sleep(20);
    }
  }

  /**
   * A claim of item A is stopped in the middle of its transaction (a trigger on A's row waits for a
   * lock the test holds): it holds A's row and the shared write lock. Another runner's claims of
   * other items, its promotion under max_wip and the write of the item it holds complete meanwhile
   * (with one write lock for every write they would wait for A's claim); a backlog sync, a write of
   * the whole state, does wait (seen waiting in pg_locks), and both end once the gate opens.
   */
  @Test
  void claims_and_item_writes_of_other_items_proceed_beside_a_claim_in_progress_and_a_state_write_waits()
      throws Exception {
    Runner a = runner(1);
    Runner b = runner(2);
    List<BacklogItem> backlog = List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY),
        item("C", InitialStatus.READY));
    a.store().items().sync(backlog, T0);
    EmbeddedPostgresServer.execute(schema, """
        CREATE FUNCTION gate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_advisory_lock(%d);
          PERFORM pg_advisory_unlock(%d);
          RETURN NEW;
        END $$;
        CREATE TRIGGER gate BEFORE UPDATE ON items FOR EACH ROW WHEN (NEW.id = 'A') EXECUTE FUNCTION gate();
        """.formatted(GATE, GATE));
    ExecutorService threads = Executors.newCachedThreadPool();
    try (Connection gate = EmbeddedPostgresServer.connect(); Statement st = gate.createStatement()) {
      st.execute("SELECT pg_advisory_lock(" + GATE + ")");
      Future<Optional<ItemState>> claimOfA = threads.submit(() -> a.leases().claim("A", 0));
      until("the claim of A waits at the gate", () -> waitingAtGate() == 1);
      assertEquals(List.of("ShareLock:true"), writeLocks(), "the claim holds the shared write lock");

      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        ItemState b1 = b.leases().claim("B", 0).orElseThrow();
        b.store().items().apply(to(b1, ItemStatus.IN_PROGRESS, "design"), T0);
        assertTrue(b.leases().claim("C", 5).isPresent(), "a promotion under max_wip");
      }, "row writes of other items waited for the claim of A");
      assertEquals(ItemStatus.IN_PROGRESS, b.store().items().item("B").orElseThrow().status());

      Future<?> sync = threads.submit(() -> b.store().items().sync(backlog, T0));
      until("the sync waits for the write lock", () -> writeLocks().contains("ExclusiveLock:false"));
      assertFalse(sync.isDone(), "a write of the whole state waits for the row write in progress");
      assertFalse(claimOfA.isDone());

      st.execute("SELECT pg_advisory_unlock(" + GATE + ")");
      assertEquals(ItemStatus.READY, claimOfA.get(30, TimeUnit.SECONDS).orElseThrow().status());
      sync.get(30, TimeUnit.SECONDS);
    } finally {
      threads.shutdownNow();
    }
    assertEquals(a.lease().runnerId(), owner("A"));
    assertEquals(b.lease().runnerId(), owner("B"));
    assertEquals(b.lease().runnerId(), owner("C"));
  }

  /**
   * Six runners claim the same item at the same moment (a barrier), item after item: exactly one
   * claim wins each time, and the item's lease names that runner.
   */
  @Test
  void runners_claiming_one_item_at_once_exclude_each_other_exactly_one_wins() throws Exception {
    int runners = 6;
    int items = 40;
    List<Runner> all = new ArrayList<>();
    for (int r = 0; r < runners; r++) {
      all.add(runner(r));
    }
    all.get(0).store().items().sync(ready("S", items), T0);
    CyclicBarrier barrier = new CyclicBarrier(runners);
    ExecutorService threads = Executors.newFixedThreadPool(runners);
    try {
      List<Future<List<String>>> won = new ArrayList<>();
      for (Runner r : all) {
        won.add(threads.submit(() -> {
          List<String> mine = new ArrayList<>();
          for (int i = 0; i < items; i++) {
            barrier.await(30, TimeUnit.SECONDS);
            if (r.leases().claim("S" + i, 0).isPresent()) {
              mine.add("S" + i);
            }
          }
          return mine;
        }));
      }
      int[] winners = new int[items];
      for (int r = 0; r < runners; r++) {
        for (String id : won.get(r).get(120, TimeUnit.SECONDS)) {
          int i = Integer.parseInt(id.substring(1));
          winners[i]++;
          assertEquals(all.get(r).lease().runnerId(), owner(id));
        }
      }
      for (int i = 0; i < items; i++) {
        assertEquals(1, winners[i], "claims of S" + i + " that won");
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Six runners each promote a different ready item at the same moment under max_wip 3, round after
   * round (released in between): exactly three claims win each round, never more.
   */
  @Test
  void promotions_of_different_items_at_once_never_take_wip_beyond_max_wip() throws Exception {
    int runners = 6;
    int rounds = 25;
    int maxWip = 3;
    List<Runner> all = new ArrayList<>();
    for (int r = 0; r < runners; r++) {
      all.add(runner(r));
    }
    all.get(0).store().items().sync(ready("P", runners), T0);
    CyclicBarrier claimed = new CyclicBarrier(runners);
    CyclicBarrier released = new CyclicBarrier(runners);
    ExecutorService threads = Executors.newFixedThreadPool(runners);
    try {
      List<Future<boolean[]>> won = new ArrayList<>();
      for (int r = 0; r < runners; r++) {
        Runner runner = all.get(r);
        String id = "P" + r;
        won.add(threads.submit(() -> {
          boolean[] mine = new boolean[rounds];
          for (int round = 0; round < rounds; round++) {
            claimed.await(30, TimeUnit.SECONDS);
            mine[round] = runner.leases().claim(id, maxWip).isPresent();
            released.await(30, TimeUnit.SECONDS); // every claim of the round is in before any release
            if (mine[round]) {
              runner.leases().release(id);
            }
          }
          return mine;
        }));
      }
      int[] wins = new int[rounds];
      for (Future<boolean[]> f : won) {
        boolean[] mine = f.get(120, TimeUnit.SECONDS);
        for (int round = 0; round < rounds; round++) {
          wins[round] += mine[round] ? 1 : 0;
        }
      }
      for (int round = 0; round < rounds; round++) {
        assertEquals(maxWip, wins[round], "promotions that won in round " + round);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private String owner(String id) {
    return EmbeddedPostgresServer.text(schema, "SELECT lease_owner FROM items WHERE id = '" + id + "'");
  }
}
