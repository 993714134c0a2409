package dev.orchestrate.item;

/**
 * Everything the scheduler persists, as domain operations, one port a table (or two): the items
 * ({@link ItemRepository}), the review queue ({@link ReviewQueue}), the jobs ({@link JobRepository}),
 * the runs ({@link RunRepository}) and what agents spent ({@link UsageRepository}). A part of the
 * run that needs one of them takes that one. Each method is one transaction: when it returns, the
 * change is committed, so a crash after it loses nothing (docs/architecture.md). Implemented in
 * {@code state/sql} ({@code SqlStateRepository}) on one store; the scheduler never sees SQL.
 */
public interface StateRepository extends ItemRepository, ReviewQueue, JobRepository, RunRepository, UsageRepository {
}
