package dev.orchestrate.stats;

import java.time.Instant;

/**
 * A runner registered in a state several runners share, as {@code stats} lists it.
 *
 * @param id          {@code host:pid:start-ms}
 * @param host        the host it runs on
 * @param pid         its process id there
 * @param startedAt   when it registered
 * @param heartbeatAt its last heartbeat (the database server's clock)
 * @param heartbeatAgeMs how old that heartbeat was when read (the server's clock too)
 * @param items       the items it holds now
 */
public record RunnerLease(String id, String host, long pid, Instant startedAt, Instant heartbeatAt,
    long heartbeatAgeMs, int items) {
}
