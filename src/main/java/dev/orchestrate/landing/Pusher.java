package dev.orchestrate.landing;

import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.PushRecord;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.SharedRemote;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceSetupException;
import dev.orchestrate.workspace.WorkspaceStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code execution.merge: push} (docs/workspaces.md), for {@link Landing}: the item's branch,
 * already rebased onto the base branch, is pushed to {@code execution.remote} with a lease on what
 * orchestrate last pushed there, then {@code execution.pull_request} runs once per item. A failure
 * (of either) is recorded with its output, credentials masked, and retried with a backoff of 30 s
 * doubling to 30 min; the eighth failure in a row (about an hour after the first) blocks the item.
 *
 * <p>The remote is pinned when the run starts, before any agent worked: its URL is read then, and
 * the push goes to that URL (not the remote's name, whose configuration an agent can rewrite in the
 * shared git directory), with git's own {@code git-receive-pack} (a configured
 * {@code remote.*.receivepack} names a program). A URL changed since is refused, not followed.
 * Credential helpers stay off (as for every git command orchestrate runs, see {@link Git}): the
 * push authenticates by ssh (the user's {@code GIT_SSH_COMMAND}, else {@code ssh}) or by what the
 * URL itself carries, which is masked wherever it is shown.
 */
final class Pusher {
  private static final Logger log = LoggerFactory.getLogger(Landing.class);
  static final Duration FIRST_RETRY = Duration.ofSeconds(30);
  static final Duration LAST_RETRY = Duration.ofMinutes(30);
  /** The failure in a row that blocks the item. */
  static final int MAX_FAILURES = 8;

  private final Git git;
  private final Repository repo;
  private final WorkspaceConfig config;
  private final WorkspaceStore store;
  private final Clock clock;
  private final Path bodies;
  private volatile PushOutput mask = PushOutput.of(UnaryOperator.identity());

  /** The environment the pull-request command starts from. */
  private volatile Map<String, String> commandEnv = System.getenv();

  void environment(Map<String, String> env) {
    commandEnv = env;
  }

  /** Masks the agents' secrets too in what it records of a push's or a command's output. */
  void masking(UnaryOperator<String> secrets) {
    mask = PushOutput.of(secrets);
  }
  /** The remote's URL as read when the run started; null until {@link #pin()}. */
  private String url;
  /** The configuration that steers a push (see {@link #transportConfig}) as read when the run started. */
  private String transport;

  /** @param bodies where the pull requests' body files go ({@code <state>/jobs}, one directory per item) */
  Pusher(Git git, Repository repo, WorkspaceConfig config, WorkspaceStore store, Clock clock, Path bodies) {
    this.git = git;
    this.repo = repo;
    this.config = config;
    this.store = store;
    this.clock = clock;
    this.bodies = bodies;
  }

  /** Reads the remote's URL now, before any agent of the run worked. */
  void pin() {
    url = remoteUrl(git, repo, config.remote());
    transport = transportConfig();
  }

  /**
   * The repository's keys that steer where and how a push goes: {@code url.*} (rewrites like
   * {@code insteadOf}), {@code http.*} (a proxy, certificate checks, extra headers) and the
   * remote's own section. Changed during the run, they are an agent's doing until the user says
   * otherwise (by starting a new run).
   */
  private String transportConfig() {
    return SharedRemote.transport(git, repo.checkout(), config.remote());
  }

  /**
   * The push URL of {@code remote} in the repository ({@code remote.NAME.pushurl}, else
   * {@code remote.NAME.url}).
   *
   * @throws WorkspaceSetupException when the repository has no such remote
   */
  static String remoteUrl(Git git, Repository repo, String remote) {
    return SharedRemote.url(git, repo, remote, "execution.merge: push pushes each done item's branch there");
  }

  /** When a failed item is tried again: 30 s after its first failure, doubling up to 30 min. */
  static Instant nextTry(PushRecord push) {
    if (push.failures() <= 0 || push.triedAt() == null || push.failures() >= MAX_FAILURES) {
      return Instant.MIN;
    }
    long factor = 1L << Math.min(20, push.failures() - 1);
    Duration wait = FIRST_RETRY.multipliedBy(factor);
    return push.triedAt().plus(wait.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : wait);
  }

  /** Whether the item's retry is due (always, for an item that has not failed). */
  boolean due(PushRecord push) {
    return !clock.instant().isBefore(nextTry(push));
  }

  /**
   * What pushing an item did.
   *
   * @param pushed  the branch is on the remote and its pull request (if any) opened
   * @param blocks  the failure is the fifth in a row: the item is blocked with the message
   */
  record Outcome(boolean pushed, boolean blocks, String message) {
  }

  /** Pushes the item's branch at {@code tip} (rebased onto {@code base}), then runs its pull-request command. */
  Outcome push(WorkspaceRecord ws, String base, String tip, String title) {
    return SlowWork.inline(pushSlowly(ws, base, tip, title));
  }

  /**
   * As {@link #push}, the {@code git push} and the pull-request command each run off the scheduler
   * thread; the push is recorded (its sha, the lease of the next one) before the pull-request
   * command starts.
   */
  SlowWork<Outcome> pushSlowly(WorkspaceRecord ws, String base, String tip,
      String title) {
    PushRecord stored = store.push(ws.itemId());
    // unblocked after it blocked: a new series of attempts
    PushRecord prior = stored.failures() >= MAX_FAILURES
        ? new PushRecord(stored.sha(), stored.url(), 0, stored.triedAt()) : stored;
    String now = remoteUrl(git, repo, config.remote());
    if (url == null) {
      url = now;
    } else if (!url.equals(now)) {
      return SlowWork.now(() -> failed(ws, prior, "the URL of remote "
          + config.remote() + " changed since the run started (from " + url + " to " + now + "): orchestrate "
          + "pushes only to the URL it read before any agent ran; if the change is yours, restart the run"));
    }
    String steering = transportConfig();
    if (transport == null) {
      transport = steering;
    } else if (!transport.equals(steering)) {
      return SlowWork.now(() -> failed(ws, prior, "the repository's url.*, "
          + "http.* or remote." + config.remote() + ".* configuration changed since the run started: orchestrate "
          + "pushes only with the configuration it read before any agent ran; look at it (git config "
          + "--get-regexp '^(url|http|remote)\\.'), and if the change is yours, restart the run"));
    }
    String ref = "refs/heads/" + ws.branch();
    if (tip.equals(prior.sha())) {
      return pullRequest(ws, prior, base, tip, title);
    }
    String target = url;
    List<String> args = List.of("push", "--porcelain", "--receive-pack=git-receive-pack",
        "--force-with-lease=" + ref + ":" + (prior.sha() == null ? "" : prior.sha()), target, tip + ":" + ref);
    return new Offloaded<Git.Result, Outcome>(stopper -> {
      try {
        return git.run(repo.checkout(), pushEnvironment(), args);
      } catch (GitException e) { // did not finish in time, or stopped (then nothing is recorded)
        return new Git.Result(-1, "", e.getMessage());
      }
    },
        (push, self) -> {
          if (!push.ok()) {
            return failed(ws, prior, "git push of " + ws.branch() + " to " + config.remote() + " (" + target
                + ") failed" + (prior.sha() == null ? "" : " (the lease expects it at "
                    + prior.sha().substring(0, 12) + ")")
                + ": " + (push.err() + "\n" + push.out()).strip());
          }
          Instant at = clock.instant();
          PushRecord pushed = new PushRecord(tip, prior.url(), prior.failures(), at);
          store.push(ws.itemId(), pushed, at);
          SlowWork<Outcome> rest = pullRequest(ws, pushed, base, tip, title);
          if (rest.offThread()) {
            self.then(rest);
            return null;
          }
          return rest.finish();
        });
  }

  /** After the push: the pull-request command when the item has none yet, then the outcome recorded. */
  private SlowWork<Outcome> pullRequest(WorkspaceRecord ws, PushRecord pushed,
      String base, String tip, String title) {
    if (config.pullRequest() == null || pushed.url() != null) {
      return SlowWork.now(() -> pushedOutcome(ws, tip, pushed.url()));
    }
    Path body;
    try {
      body = writeBody(ws, base, tip, title);
    } catch (IOException e) {
      return SlowWork.now(() -> failed(ws, pushed,
          "could not write the pull request's body file: " + e.getMessage()));
    }
    Map<String, String> values = new LinkedHashMap<>();
    values.put("branch", ws.branch());
    values.put("base", ws.baseBranch());
    values.put("item", ws.itemId());
    values.put("title", title == null ? ws.itemId() : title);
    values.put("body_file", body.toString());
    return new Offloaded<PullRequestCommand.Outcome, Outcome>(
        stopper -> PullRequestCommand.run(config.pullRequest(), values, repo.top(), commandEnv, stopper),
        (run, self) -> {
          if (!run.ok()) {
            return failed(ws, pushed, "execution.pull_request " + (run.failure() != null ? "failed: "
                + run.failure() : "exited with " + run.exitCode()) + (run.output().isBlank() ? ""
                    : ": " + Quote.escapedLines(run.output()).strip()));
          }
          String prUrl = PushOutput.lastUrl(mask.mask(run.output()));
          if (prUrl == null) {
            log.warn("{}: execution.pull_request printed no http(s) URL", ws.itemId());
          }
          return pushedOutcome(ws, tip, prUrl);
        });
  }

  private Outcome pushedOutcome(WorkspaceRecord ws, String tip, String prUrl) {
    Instant at = clock.instant();
    store.push(ws.itemId(), new PushRecord(tip, prUrl, 0, at), at);
    return new Outcome(true, false, ws.branch() + " pushed to " + config.remote() + " at " + tip.substring(0, 12)
        + (prUrl == null ? "" : ": " + prUrl));
  }

  private Outcome failed(WorkspaceRecord ws, PushRecord prior, String message) {
    Instant at = clock.instant();
    PushRecord failed = new PushRecord(prior.sha(), prior.url(), prior.failures() + 1, at);
    store.push(ws.itemId(), failed, at);
    String masked = mask.tail(message);
    if (failed.failures() >= MAX_FAILURES) {
      String reason = masked + " (failed " + failed.failures() + " times in a row: fix the cause, then unblock "
          + ws.itemId() + ")";
      log.warn("{}: not pushed, blocked: {}", ws.itemId(), reason);
      return new Outcome(false, true, reason);
    }
    Duration wait = Duration.between(at, nextTry(failed));
    return new Outcome(false, false, masked + "; tried again in " + wait.toSeconds() + " s (failure "
        + failed.failures() + " of " + MAX_FAILURES + ")");
  }

  /**
   * The body file of the item's pull request, in its job directory: its title, its branch, and its
   * phase commits (each phase and its summary) oldest first.
   */
  private Path writeBody(WorkspaceRecord ws, String base, String tip, String title) throws IOException {
    Path dir = bodies.resolve(ws.itemId()).normalize();
    if (!bodies.equals(dir.getParent())) {
      throw new IOException("item id " + ws.itemId() + " names no directory under " + bodies);
    }
    Files.createDirectories(dir);
    StringBuilder body = new StringBuilder();
    body.append("Item ").append(ws.itemId()).append(title == null ? "" : ": " + title.strip()).append("\n\n");
    body.append("Branch `").append(ws.branch()).append("` onto `").append(ws.baseBranch()).append("`.\n\n");
    body.append("## Phases\n\n");
    Git.Result log = git.run(repo.checkout(), "log", "--reverse", "--format=%h%x1f%s%x1f%b%x1e", base + ".." + tip);
    for (String entry : log.ok() ? log.out().split("\u001e") : new String[0]) {
      String[] parts = entry.strip().split("\u001f", 3);
      if (parts.length < 2) {
        continue;
      }
      body.append("- ").append(parts[1].strip()).append(" (").append(parts[0].strip()).append(")\n");
      if (parts.length == 3) {
        parts[2].lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("Orchestrate-"))
            .forEach(l -> body.append("  ").append(l).append('\n'));
      }
    }
    Path file = dir.resolve("pull-request.md");
    Path temp = dir.resolve("pull-request.md.tmp");
    Files.deleteIfExists(temp);
    Files.writeString(temp, body.toString(), StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW);
    Files.move(temp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  /** ssh as the user runs it: the repository's core.sshCommand is the agents' to write, so it is not used. */
  private static Map<String, String> pushEnvironment() {
    String ssh = System.getenv("GIT_SSH_COMMAND");
    return Map.of("GIT_SSH_COMMAND", ssh == null || ssh.isBlank() ? "ssh" : ssh);
  }
}
