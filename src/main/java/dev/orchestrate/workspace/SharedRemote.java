package dev.orchestrate.workspace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The remote where the work of several clones meets ({@code execution.landing: remote},
 * docs/workspaces.md, "Several machines"): every phase commit of an item is pushed to
 * {@code refs/orchestrate/<ID>} there before its job counts, so that any runner can continue the
 * item in its own clone; worktrees start from the remote's base branch; and integration lands on
 * it by a push with a lease on the tip the gates saw (a compare-and-swap on the remote).
 *
 * <p>As for {@code merge: push}, the remote is pinned when the run starts, before any agent worked:
 * its URL and the configuration that steers a push ({@code url.*}, {@code http.*}, the remote's own
 * section) are read then, every fetch and push goes to that URL, and a configuration changed since
 * is refused, never followed (an agent can write the shared git directory's config). Credentials
 * are what the URL carries or ssh's; they are masked wherever a message shows them.
 *
 * <p>Its fetches and pushes run one at a time, and never beside a {@code worktree add} or removal
 * ({@link #besideFetches}, one at a time too): the worktrees' workers prepare and commit several items at once, two
 * fetches of one branch into this clone would race for its ref's lock, and a fetch's connectivity
 * check reads every worktree's HEAD, which {@code worktree add} writes before its commit is there.
 */
public final class SharedRemote {
  private final java.util.concurrent.locks.ReentrantReadWriteLock layout = new java.util.concurrent.locks.ReentrantReadWriteLock();
  private final java.util.concurrent.locks.Lock exclusive = layout.writeLock();

  /**
   * Held by a {@code worktree add} or removal: never beside a fetch or push, nor beside another.
   * {@code git worktree add} reads every other worktree's administrative directory, which another
   * add is writing: two side by side fail ("fatal: failed to read .git/worktrees/A/commondir",
   * seen in ChecksRunCliTest when adds shared a read lock).
   */
  java.util.concurrent.locks.Lock besideFetches() {
    return exclusive;
  }

  /** Where each item's last phase commit is kept on the remote: {@code refs/orchestrate/<ID>}. */
  public static final String ITEM_REFS = "refs/orchestrate/";

  private final Git git;
  private final Git.Place checkout;
  private final String name;
  private final String url;
  private final String transport;
  /** A URL's scheme, then a user part: everything up to the '@' before the host. */
  public static final java.util.regex.Pattern USER_INFO = java.util.regex.Pattern
      .compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/\\s]+@");
  private volatile UnaryOperator<String> mask = SharedRemote::withoutCredentials;

  private SharedRemote(Git git, Git.Place checkout, String name, String url, String transport) {
    this.git = git;
    this.checkout = checkout;
    this.name = name;
    this.url = url;
    this.transport = transport;
  }

  /**
   * Reads {@code name}'s URL and the configuration that steers a push now, before any agent of the
   * run worked.
   *
   * @throws WorkspaceSetupException when the repository has no such remote
   */
  public static SharedRemote pin(Git git, Repository repo, String name) {
    return new SharedRemote(git, repo.checkout(), name, url(git, repo, name,
        "execution.landing: remote pushes every phase commit there and lands work on its base branch"),
        transport(git, repo.checkout(), name));
  }

  /** Masks the agents' {@code secrets} too (URL credentials always) in what its messages say. */
  public SharedRemote masking(UnaryOperator<String> secrets) {
    Objects.requireNonNull(secrets, "secrets");
    mask = text -> secrets.apply(withoutCredentials(text));
    return this;
  }

  /**
   * {@code text} with the user part of every URL replaced by {@code ***}
   * ({@code https://user:token@host} becomes {@code https://***@host}).
   */
  public static String withoutCredentials(String text) {
    return text == null ? null
        : USER_INFO.matcher(text).replaceAll(m -> java.util.regex.Matcher.quoteReplacement(m.group(1) + "***@"));
  }

  /** The remote's name ({@code execution.remote}). */
  public String name() {
    return name;
  }

  /** The remote's URL, as pinned, credentials masked. */
  public String where() {
    return mask.apply(url);
  }

  /**
   * The push URL of {@code remote} in the repository ({@code remote.NAME.pushurl}, else
   * {@code remote.NAME.url}).
   *
   * @param why what the remote is for, for the message
   * @throws WorkspaceSetupException when the repository has no such remote
   */
  public static String url(Git git, Repository repo, String remote, String why) {
    for (String key : List.of("pushurl", "url")) {
      Git.Result r = git.run(repo.checkout(), "config", "--get", "remote." + remote + "." + key);
      if (r.ok() && !r.line().isBlank()) {
        return r.line().lines().reduce((a, b) -> b).orElse(r.line());
      }
    }
    throw new WorkspaceSetupException("execution.remote '" + remote + "' is not a remote of the repository at "
        + repo.top() + " (" + why + "): add it (git remote add " + remote
        + " URL), or name another one in execution.remote");
  }

  /**
   * The repository's keys that steer where and how a push goes: {@code url.*} (rewrites like
   * {@code insteadOf}), {@code http.*} (a proxy, certificate checks, extra headers) and the remote's
   * own section; from the configuration check's listing ({@link Git#steering}: no process while
   * the configuration's files are unchanged), else, when they are too many to keep, from git.
   */
  public static String transport(Git git, Git.Place checkout, String remote) {
    String listed = git.steering(checkout, remote);
    return listed != null ? listed : git.run(checkout, "config", "--null", "--get-regexp",
        "^(url\\..*|http\\..*|remote\\." + remote.replace(".", "\\.") + "\\..*)$").out();
  }

  /** The ref that holds the item's last phase commit, on the remote and in this clone. */
  public static String itemRef(String itemId) {
    return ITEM_REFS + itemId;
  }

  /**
   * Pushes {@code commit} to the item's ref on the remote, with a lease on {@code expected} (null:
   * the ref must not exist yet). Another runner that lost the item (its lease taken over) pushing
   * meanwhile makes the lease fail: then the ref is read and pushed over once more, as the item's
   * holder is the one whose commit counts.
   *
   * @throws GitException when the push fails (the remote unreachable, refused, the configuration changed)
   */
  public void publish(String itemId, String commit, String expected) {
    exclusive.lock();
    try {
      steady();
      String ref = itemRef(itemId);
      Git.Result push = push("--force-with-lease=" + ref + ":" + (expected == null ? "" : expected),
          commit + ":" + ref);
      if (!push.ok()) {
        String there = remoteTip(ref);
        if (!Objects.equals(there, commit)) {
          Git.Result again = push("--force-with-lease=" + ref + ":" + (there == null ? "" : there), commit + ":" + ref);
          if (!again.ok()) {
            throw new GitException("could not push " + abbrev(commit) + " to " + ref + " on " + name + " (" + where()
                + "): " + mask.apply(again.reason()));
          }
        }
      }
      // this clone's copy of the ref: what it published last (its clean-up knows a branch at it is on the remote)
      git.run(checkout, "update-ref", ref, commit);
    } finally {
      exclusive.unlock();
    }
  }

  /** Deletes the item's ref on the remote and in this clone: its work landed on the base. */
  public void drop(String itemId) {
    exclusive.lock();
    try {
      steady();
      String ref = itemRef(itemId);
      git.run(checkout, "update-ref", "-d", ref);
      // what fetchItem kept of another runner's work: usually never fetched, and then no process to delete it
      String fetched = "refs/orchestrate-remote/" + itemId;
      if (!RefFiles.absent(checkout.commonDir(), fetched)) {
        git.run(checkout, "update-ref", "-d", fetched);
      }
      List<String> args = List.of("push", "--porcelain", "--quiet", "--receive-pack=git-receive-pack", "--no-verify",
          url,
          ":" + ref);
      Git.Result push = git.run(checkout, environment(), args);
      if (!push.ok() && remoteTip(ref) != null) {
        throw new GitException("could not delete " + ref + " on " + name + ": " + mask.apply(push.reason()));
      }
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * Fetches the item's ref from the remote into {@code refs/orchestrate-remote/<ID>} of this clone
   * (its {@code refs/orchestrate/<ID>} stays what this clone published); returns the commit, or null
   * when the remote has no such ref.
   */
  public String fetchItem(String itemId) {
    return fetch(itemRef(itemId), "refs/orchestrate-remote/" + itemId);
  }

  /**
   * Fetches the remote's {@code branch} into {@code refs/remotes/<remote>/<branch>} and returns its
   * tip, or null when the remote has no such branch.
   */
  public String fetchBase(String branch) {
    return fetch("refs/heads/" + branch, "refs/remotes/" + name + "/" + branch);
  }

  private String fetch(String ref, String into) {
    exclusive.lock();
    try {
      steady();
      Git.Result fetch = git.run(checkout, environment(),
          List.of("fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
              "--upload-pack=git-upload-pack", url, "+" + ref + ":" + into));
      if (!fetch.ok() && fetch.err().contains("couldn't find remote ref")) {
        git.run(checkout, "update-ref", "-d", into);
        return null;
      }
      if (!fetch.ok()) {
        throw new GitException("could not fetch " + ref + " from " + name + " (" + where() + "): "
            + mask.apply(fetch.reason()));
      }
      return git.commit(checkout, into);
    } finally {
      exclusive.unlock();
    }
  }

  /** Whether this clone has {@code commit} (and everything it needs). */
  public boolean has(String commit) {
    return commit != null && git.run(checkout, "cat-file", "-e", commit + "^{commit}").ok();
  }

  /** What moving the remote's base branch did. */
  public enum Landed {
    /** The branch is at the new tip. */
    DONE,
    /** The branch was not where the lease expected it: another runner landed something first. */
    MOVED
  }

  /**
   * Moves the remote's {@code branch} from {@code from} to {@code to} by a push with a lease on
   * {@code from}: it lands only on the tip the gates saw.
   *
   * @throws GitException when the push fails otherwise (unreachable, refused by a hook)
   */
  public Landed land(String branch, String from, String to) {
    exclusive.lock();
    try {
      steady();
      String ref = "refs/heads/" + branch;
      Git.Result push = push("--force-with-lease=" + ref + ":" + from, to + ":" + ref);
      if (push.ok()) {
        git.run(checkout, "update-ref", "refs/remotes/" + name + "/" + branch, to);
        return Landed.DONE;
      }
      String there = remoteTip(ref);
      if (!Objects.equals(there, from)) {
        return Landed.MOVED;
      }
      throw new GitException("could not push " + abbrev(to) + " to " + branch + " on " + name + " (" + where() + "): "
          + mask.apply(push.reason()));
    } finally {
      exclusive.unlock();
    }
  }

  /** The commit {@code ref} names on the remote, or null when it has none. */
  public String remoteTip(String ref) {
    Git.Result ls = git.run(checkout, environment(), List.of("ls-remote", "--upload-pack=git-upload-pack", url, ref));
    if (!ls.ok()) {
      throw new GitException("could not reach " + name + " (" + where() + "): " + mask.apply(ls.reason()));
    }
    for (String line : ls.out().lines().toList()) {
      String[] parts = line.split("\t", 2);
      if (parts.length == 2 && parts[1].equals(ref)) {
        return parts[0];
      }
    }
    return null;
  }

  private Git.Result push(String lease, String refspec) {
    List<String> args = new ArrayList<>(List.of("push", "--porcelain", "--quiet", "--receive-pack=git-receive-pack",
        "--no-verify", lease, url, refspec));
    return git.run(checkout, environment(), args);
  }

  /** The steering configuration as when the run started, or a refusal naming what changed. */
  private void steady() {
    if (!transport.equals(transport(git, checkout, name))) {
      throw new GitException("the repository's url.*, http.* or remote." + name + ".* configuration changed since "
          + "the run started: orchestrate fetches and pushes only with the configuration it read before any agent "
          + "ran; look at it (git config --get-regexp '^(url|http|remote)\\.'), and if the change is yours, "
          + "restart the run");
    }
  }

  private static Map<String, String> environment() {
    String ssh = System.getenv("GIT_SSH_COMMAND");
    return Map.of("GIT_SSH_COMMAND", ssh == null || ssh.isBlank() ? "ssh" : ssh);
  }

  static String abbrev(String commit) {
    return commit == null ? "(none)" : commit.substring(0, Math.min(12, commit.length()));
  }
}
