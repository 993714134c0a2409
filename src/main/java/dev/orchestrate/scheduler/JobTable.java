package dev.orchestrate.scheduler;

import dev.orchestrate.outcome.JobState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The jobs of this run session, in memory (docs/architecture.md). Owned by the
 * scheduler thread; not thread-safe, on purpose. Job history lives in the database; this table
 * holds what the session needs at hand: the running jobs (to cancel them on Ctrl-C) and the last
 * few that ended.
 *
 * <p>Its bound: {@link #cleanUp} runs before every spawn and keeps every active job and the
 * {@value #KEEP_INACTIVE} most recently started inactive ones, dropping older inactive jobs first.
 * A job whose cancellation was requested but whose process has not exited is still
 * {@link JobState#RUNNING} (active) and is never dropped. So the table never holds more than
 * {@code active + 3} jobs, however long the session. The scheduler also cleans up right after a
 * job ends, so the bound holds between spawns too; the peaks are taken at starts and clean-ups.
 *
 * @param <H> the handle of a running job (the agent), kept so a stop can cancel it
 */
final class JobTable<H> {
  /** Inactive jobs kept for display (the live view's last finished jobs). */
  public static final int KEEP_INACTIVE = 3;

  /** One job of the session; {@code seq} orders jobs by start. */
  public static final class Entry<H> {
    private final long jobId;
    private final long seq;
    private final String itemId;
    private final String phase;
    private final int attempt;
    private final Instant startedAt;
    private final H handle;
    private JobState state = JobState.RUNNING;
    private boolean cancelRequested;

    Entry(long jobId, long seq, String itemId, String phase, int attempt, Instant startedAt, H handle) {
      this.jobId = jobId;
      this.seq = seq;
      this.itemId = Objects.requireNonNull(itemId, "itemId");
      this.phase = Objects.requireNonNull(phase, "phase");
      this.attempt = attempt;
      this.startedAt = Objects.requireNonNull(startedAt, "startedAt");
      this.handle = handle;
    }

    public long jobId() {
      return jobId;
    }

    public String itemId() {
      return itemId;
    }

    public String phase() {
      return phase;
    }

    public int attempt() {
      return attempt;
    }

    public Instant startedAt() {
      return startedAt;
    }

    public H handle() {
      return handle;
    }

    /** As recorded in job history: {@link JobState#RUNNING} until {@link JobTable#ended}. */
    public JobState state() {
      return state;
    }

    /** True once a stop asked for this job's cancellation (it stays active until its process exits). */
    public boolean cancelRequested() {
      return cancelRequested;
    }
  }

  private final Map<Long, Entry<H>> jobs = new LinkedHashMap<>();
  private long nextSeq;
  private int peakActive;
  private int peakInactive;

  /**
   * Before every spawn: keeps every active job and the {@value #KEEP_INACTIVE} most recently
   * started inactive ones; drops the rest, oldest first. Returns how many it dropped.
   */
  public int cleanUp() {
    List<Entry<H>> inactive = new ArrayList<>();
    for (Entry<H> e : jobs.values()) {
      if (!e.state.isActive()) {
        inactive.add(e);
      }
    }
    int drop = Math.max(0, inactive.size() - KEEP_INACTIVE);
    if (drop > 0) {
      inactive.sort(Comparator.comparingLong((Entry<H> e) -> e.seq));
      for (Entry<H> e : inactive.subList(0, drop)) {
        jobs.remove(e.jobId);
      }
    }
    updatePeaks();
    return drop;
  }

  /** Records a job that has just been spawned; it is active until {@link #ended}. */
  public Entry<H> started(long jobId, String itemId, String phase, int attempt, Instant startedAt, H handle) {
    if (jobs.containsKey(jobId)) {
      throw new IllegalArgumentException("job " + jobId + " is already in the table");
    }
    Entry<H> e = new Entry<>(jobId, nextSeq++, itemId, phase, attempt, startedAt, handle);
    jobs.put(jobId, e);
    updatePeaks();
    return e;
  }

  /** Marks a job as asked to stop; it stays active until its process has exited. */
  public void cancelRequested(long jobId) {
    Entry<H> e = jobs.get(jobId);
    if (e != null && e.state.isActive()) {
      e.cancelRequested = true;
    }
  }

  /** Records how a job ended (its process has exited). */
  public void ended(long jobId, JobState state) {
    if (state.isActive() || state == JobState.INTERRUPTED) {
      throw new IllegalArgumentException(
          "a job of this session ends completed, cancelled or failed, not " + state.key());
    }
    Entry<H> e = jobs.get(jobId);
    if (e == null) {
      throw new IllegalStateException("job " + jobId + " is not in the table");
    }
    e.state = state;
  }

  public Optional<Entry<H>> get(long jobId) {
    return Optional.ofNullable(jobs.get(jobId));
  }

  /** Active jobs, oldest first. */
  public List<Entry<H>> active() {
    List<Entry<H>> out = new ArrayList<>();
    for (Entry<H> e : jobs.values()) {
      if (e.state.isActive()) {
        out.add(e);
      }
    }
    return out;
  }

  /** Every job in the table, oldest first. */
  public List<Entry<H>> all() {
    return List.copyOf(jobs.values());
  }

  public int activeCount() {
    int n = 0;
    for (Entry<H> e : jobs.values()) {
      if (e.state.isActive()) {
        n++;
      }
    }
    return n;
  }

  public int size() {
    return jobs.size();
  }

  public int peakActive() {
    return peakActive;
  }

  public int peakInactive() {
    return peakInactive;
  }

  private void updatePeaks() {
    int active = activeCount();
    peakActive = Math.max(peakActive, active);
    peakInactive = Math.max(peakInactive, jobs.size() - active);
  }
}
