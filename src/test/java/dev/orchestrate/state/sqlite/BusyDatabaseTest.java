package dev.orchestrate.state.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StoreInterruptedException;
import dev.orchestrate.state.sql.Jdbc;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 7: a write lock held elsewhere is waited out, said once, and a stop ends the wait. */
class BusyDatabaseTest {
  @TempDir
  Path dir;

  /** Holds the write lock on its own connection (BEGIN IMMEDIATE) until {@code release} counts down. */
  private Thread holdLock(Path file, CountDownLatch held, CountDownLatch release) {
    Thread t = new Thread(() -> {
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        st.executeUpdate("INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
            + " VALUES (1000, 'holder', 'semantic', '', 'x', '[]', 0, 1)");
        held.countDown();
        release.await(60, TimeUnit.SECONDS);
        st.execute("COMMIT");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, "lock-holder");
    t.start();
    return t;
  }

  @Test
  void a_write_waits_for_a_lock_held_longer_than_the_busy_timeout_says_so_once_and_loses_nothing() throws Exception {
    Path file = dir.resolve("state.db");
    Connection connection = Database.open(file);
    Jdbc jdbc = new Jdbc(connection, new SqliteDialect(file));
    List<String> told = new CopyOnWriteArrayList<>();
    jdbc.busyWait(new BusyWait(told::add, () -> false, 300)); // patience 300 ms instead of 10 s
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = holdLock(file, held, release);
    assertTrue(held.await(30, TimeUnit.SECONDS));
    Thread releaser = new Thread(() -> {
      try {
        Thread.sleep(1_500); // five times the patience: a wait that must be told, once
      } catch (InterruptedException e) {
        return;
      }
      release.countDown();
    });
    releaser.start();

    jdbc.inTransaction(() -> jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at,"
        + " load_bearing) VALUES (1, 'mine', 'semantic', '', 'y', '[]', 0, 1)"));
    jdbc.execute("UPDATE memories SET title = 'autocommit write after the wait' WHERE id = 'mine'");

    holder.join();
    assertEquals(1, told.size(), told.toString());
    assertEquals("orchestrate: warning: state database " + file + " is locked by another process; waiting\u2026"
        + " (Ctrl-C to stop)", told.get(0));
    assertEquals(2, jdbc.queryLong("SELECT count(*) FROM memories WHERE id IN ('mine', 'holder')"));
    connection.close();
  }

  @Test
  void a_stop_ends_the_wait_with_a_store_interrupted_exception_and_nothing_half_written() throws Exception {
    Path file = dir.resolve("state.db");
    Connection connection = Database.open(file);
    Jdbc jdbc = new Jdbc(connection, new SqliteDialect(file));
    AtomicBoolean stop = new AtomicBoolean();
    jdbc.busyWait(new BusyWait(line -> {}, stop::get, 10_000));
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = holdLock(file, held, release);
    assertTrue(held.await(30, TimeUnit.SECONDS));
    new Thread(() -> {
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      }
      stop.set(true);
    }).start();

    StoreInterruptedException e = assertThrows(StoreInterruptedException.class, () -> jdbc.inTransaction(
        () -> jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
            + " VALUES (1, 'mine', 'semantic', '', 'y', '[]', 0, 1)")));

    assertTrue(e.getMessage().startsWith("state database " + file + " is locked by another process"), e.getMessage());
    release.countDown();
    holder.join();
    assertEquals(0, jdbc.queryLong("SELECT count(*) FROM memories WHERE id = 'mine'"));
    stop.set(false);
    jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
        + " VALUES (2, 'later', 'semantic', '', 'y', '[]', 0, 1)");
    assertEquals(1, jdbc.queryLong("SELECT count(*) FROM memories WHERE id = 'later'"), "the connection works on");
    connection.close();
  }
}
