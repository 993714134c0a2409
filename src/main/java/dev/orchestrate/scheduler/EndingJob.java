package dev.orchestrate.scheduler;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.JobState;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * One job that has ended, bound to it: the session, the job's table entry, its request, the item
 * as it was when the job started and the follow-ups it asked for. Each way a job can end
 * ({@link JobEnds}) works over this object (db-scheduler's {@code ExecutionOperations} is the
 * model), so none of them looks the job up again or reaches into the session's maps by id.
 */
final class EndingJob {
  final Session session;
  final long jobId;
  final JobTable.Entry<Job> entry;
  final Job job;
  final JobRequest request;
  final ItemState item;
  final List<FollowUpItem> followUps;

  private EndingJob(Session session, long jobId, JobTable.Entry<Job> entry, List<FollowUpItem> followUps) {
    this.session = session;
    this.jobId = jobId;
    this.entry = entry;
    this.job = entry.handle();
    this.request = job.request();
    this.item = session.items.get(request.itemId());
    this.followUps = followUps;
  }

  /**
   * Job {@code jobId} of {@code session}, which ended: its item no longer counts as running.
   *
   * @param followUps the follow-up items the agent asked for, as {@link FollowUpItem#of} makes them
   */
  static EndingJob of(Session session, long jobId,
      java.util.function.Function<JobRequest, List<FollowUpItem>> followUps) {
    JobTable.Entry<Job> entry = session.jobs.get(jobId)
        .orElseThrow(() -> new IllegalStateException("job " + jobId + " ended but is not in the job table"));
    session.runningItems.remove(entry.handle().request().itemId());
    return new EndingJob(session, jobId, entry, followUps.apply(entry.handle().request()));
  }

  String profile() {
    return job.profile().profileName();
  }

  /** {@code end} with the size of the job's directory, written with it in one transaction. */
  JobEnd withLogBytes(JobEnd end) {
    return end.withLogBytes(directoryBytes(request.logFile().getParent()));
  }

  /** The job leaves the table of running jobs as {@code state}. */
  void leaveTable(JobState state) {
    session.jobs.ended(jobId, state);
    session.jobs.cleanUp();
  }

  /**
   * The output log whose tail the turn keeps: a plain command's, which is what it printed. A preset's
   * log is its CLI's JSON event stream (usage, model figures, tool calls): its turn keeps the answer
   * the preset's reader parsed instead, never raw events, which every later prompt would pay for.
   */
  Path plainOutput() {
    return job.profile().preset() == AgentPreset.COMMAND ? request.logFile() : null;
  }

  /**
   * The bytes of the regular files directly in a job's directory (output log, prompt, result); 0 if
   * unreadable. Links an agent planted there are not followed: they would count another file's size.
   */
  static long directoryBytes(Path dir) {
    long bytes = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        try {
          BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
              LinkOption.NOFOLLOW_LINKS);
          if (attributes.isRegularFile()) {
            bytes += attributes.size();
          }
        } catch (IOException e) {
          // gone in between: not counted
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return bytes;
  }
}
