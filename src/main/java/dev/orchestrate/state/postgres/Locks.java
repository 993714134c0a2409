package dev.orchestrate.state.postgres;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The advisory locks of a state, in their two-key form: the first key says what is locked, the
 * second which state (the schema; advisory locks are per database already). {@code pg_locks} shows
 * them as {@code classid}, {@code objid} and {@code objsubid = 2}.
 */
final class Locks {
  /**
   * Held by every write transaction: exclusively ({@code pg_advisory_xact_lock}) by the writes of the
   * whole state, one at a time; shared ({@code pg_advisory_xact_lock_shared}) by the row writes, which
   * run beside each other (see {@link PostgresDialect}).
   */
  static final int WRITE = 0x4f52_4357; // "ORCW"
  /**
   * Held exclusively ({@code pg_advisory_xact_lock}) by a row write that counts the items in progress
   * across runners to decide (a promotion's claim under {@code max_wip}), after the shared write lock:
   * two such counts never miss each other's claim.
   */
  static final int WIP = 0x4f52_4350; // "ORCP"
  /**
   * Held by one runner's heartbeat session ({@code pg_try_advisory_lock}): the runner that runs
   * retention during runs, so that several runners never run it at once.
   */
  static final int MAINTENANCE = 0x4f52_434c; // "ORCL"

  private Locks() {
  }

  /**
   * The second key for the state in {@code schema}: a CRC-32 of its name, kept positive so that it
   * reads the same as an {@code oid} in {@code pg_locks}. Two schemas of one database sharing a
   * key would only make their runs wait for each other, never mix their data.
   */
  static int key(String schema) {
    CRC32 crc = new CRC32();
    crc.update(schema.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() & 0x7fff_ffffL);
  }
}
