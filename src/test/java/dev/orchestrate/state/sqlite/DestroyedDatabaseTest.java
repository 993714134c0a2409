package dev.orchestrate.state.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.SqlStateStore;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 4: a state file destroyed under an open repository is noticed at the next commit. */
class DestroyedDatabaseTest {
  @TempDir
  Path dir;

  private Path file;
  private SqlStateStore store;

  @BeforeEach
  void open() {
    file = dir.resolve("state/state.db");
    store = SqliteBackend.store(file, StateStore.Mode.READ_WRITE);
    store.items().runStarted(Instant.EPOCH, 1); // a commit that must pass the check
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void assertNoticed(String what) {
    StoreException e = assertThrows(StoreException.class, () -> store.items().runStarted(Instant.EPOCH, 2));
    assertTrue(e.getMessage().startsWith("state database " + file + " " + what), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  void truncating_the_database_and_its_wal_is_noticed_at_the_next_commit() throws Exception {
    try (RandomAccessFile db = new RandomAccessFile(file.toFile(), "rw");
        RandomAccessFile wal = new RandomAccessFile(dir.resolve("state/state.db-wal").toFile(), "rw")) {
      db.setLength(0);
      wal.setLength(0);
    }
    assertNoticed("was truncated to 0 bytes while in use");
  }

  @Test
  void deleting_the_database_is_noticed() throws Exception {
    Files.delete(file);
    assertNoticed("was deleted while in use");
  }

  @Test
  void replacing_the_database_with_another_file_is_noticed_even_a_valid_database() throws Exception {
    Path other = dir.resolve("other/state.db");
    SqliteBackend.store(other, StateStore.Mode.READ_WRITE).close();
    Files.move(other, file, StandardCopyOption.REPLACE_EXISTING);
    assertNoticed("was replaced by another file while in use");
  }

  @Test
  void overwriting_the_header_is_noticed() throws Exception {
    try (RandomAccessFile db = new RandomAccessFile(file.toFile(), "rw")) {
      db.write("garbage garbage garbage".getBytes());
    }
    assertNoticed("was overwritten");
  }

  @Test
  void overwriting_the_wal_is_noticed() throws Exception {
    Path wal = dir.resolve("state/state.db-wal");
    assertTrue(Files.size(wal) > 32);
    try (RandomAccessFile log = new RandomAccessFile(wal.toFile(), "rw")) {
      log.write(new byte[64]);
    }
    StoreException e = assertThrows(StoreException.class, () -> store.items().runStarted(Instant.EPOCH, 2));
    assertTrue(e.getMessage().startsWith("state database " + file + ": its write-ahead log state.db-wal was"
        + " truncated or overwritten"), e.getMessage());
  }

  @Test
  void a_vacuum_by_another_process_shrinking_the_file_and_truncating_the_wal_is_no_alarm() throws Exception {
    for (int i = 0; i < 200; i++) {
      store.items().runStarted(Instant.EPOCH, i);
    }
    try (var other = SqliteBackend.store(file, StateStore.Mode.READ_WRITE)) {
      other.items().runStarted(Instant.EPOCH, 7);
    }
    long[] bytes = Database.vacuum(file);
    assertTrue(bytes[1] <= bytes[0]);
    long id = store.items().runStarted(Instant.EPOCH, 3);
    assertEquals(id, store.items().lastRun().orElseThrow().id());
  }
}
