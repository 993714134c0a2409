package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration check kept between commands: used again while every file git read is the
 * same, listed again as soon as an agent changed one. The clock runs an hour ahead, so the files
 * this test just wrote count as settled (the wait for a recent change is tested on its own).
 */
class ConfigListingsTest {
  @TempDir
  Path tmp;
  GitRepo repo;
  Path marker;
  Git git;
  Git.Place place;

  @BeforeEach
  void plant() {
    repo = GitRepo.init(tmp.resolve("repo"));
    marker = tmp.resolve("MARKER");
    repo.write(".gitattributes", "*.txt filter=evil\n");
    repo.commitAll("attributes");
    git = new Git(Git.resolve("git", System.getenv("PATH")), Git.DEFAULT_TIMEOUT,
        Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
    place = new Git.Place(repo.dir, repo.dir.resolve(".git"), repo.dir.resolve(".git"), repo.dir);
  }

  private String evil() {
    return "[filter \"evil\"]\n\tclean = touch " + marker + "; cat\n";
  }

  /** Runs the filter if it is not switched off: add a changed .txt file. */
  private void addAText(String content) throws Exception {
    Files.writeString(repo.dir.resolve("a.txt"), content);
    git.ok(place, "add", "a.txt");
  }

  /**
   * Until a command runs without listing: a Git's first listing learns the system file's name (and
   * a place's first, the includes' names), so the second is the one kept.
   */
  private void warm() throws Exception {
    addAText("warm\n");
    git.ok(place, "status", "--porcelain");
    long before = git.listings();
    git.ok(place, "status", "--porcelain");
    assertEquals(before, git.listings(), "the unchanged configuration is not listed again");
  }

  @Test
  void an_unchanged_configuration_is_listed_once_for_many_commands() throws Exception {
    git.ok(place, "status", "--porcelain");
    for (int i = 0; i < 5; i++) {
      git.ok(place, "rev-parse", "HEAD");
    }
    assertEquals(2, git.listings(), "the first listing learns the system file's name; the second is kept");
  }

  @Test
  void a_filter_written_into_the_config_between_commands_is_caught() throws Exception {
    warm();
    Files.writeString(repo.dir.resolve(".git/config"), evil(), StandardOpenOption.APPEND);
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  @Test
  void a_same_size_rewrite_in_place_with_its_old_modification_time_is_caught() throws Exception {
    Path config = repo.dir.resolve(".git/config");
    Files.writeString(config, evil().replace("evil", "good"), StandardOpenOption.APPEND);
    warm();
    FileTime modified = Files.getLastModifiedTime(config);
    byte[] planted = Files.readString(config).replace("\"good\"", "\"evil\"")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (var out = Files.newOutputStream(config, StandardOpenOption.WRITE)) { // the same inode, the same size
      out.write(planted);
    }
    Files.setLastModifiedTime(config, modified);
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  @Test
  void an_include_added_to_the_config_is_followed() throws Exception {
    warm();
    Path included = tmp.resolve("included.cfg");
    Files.writeString(included, evil());
    repo.git("config", "include.path", included.toString());
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  @Test
  void an_include_target_that_appears_after_the_listing_is_caught() throws Exception {
    Path included = tmp.resolve("later.cfg");
    repo.git("config", "include.path", included.toString());
    warm();
    Files.writeString(included, evil());
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  @Test
  void a_swapped_include_target_is_caught() throws Exception {
    Path benign = tmp.resolve("benign.cfg");
    Path evil = tmp.resolve("evil.cfg");
    Files.writeString(benign, "[user]\n\tname = x\n");
    Files.writeString(evil, evil());
    Path link = tmp.resolve("link.cfg");
    Files.createSymbolicLink(link, benign);
    repo.git("config", "include.path", "../../link.cfg"); // relative to .git/config
    warm();
    Files.delete(link);
    Files.createSymbolicLink(link, evil);
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  /**
   * A review's finding: git opens {@code dir/lnk/../x.cfg} as written, so the kernel goes up from the
   * link's target; a watched path normalized as text ({@code dir/x.cfg}) is another file.
   */
  @Test
  void an_include_through_a_link_and_dot_dot_watches_the_file_git_reads() throws Exception {
    Path real = Files.createDirectories(tmp.resolve("a/b"));
    Files.writeString(tmp.resolve("a/x.cfg"), "[user]\n\tname = x\n"); // what git reads: a/b/.. is a
    Path link = tmp.resolve("l");
    Files.createSymbolicLink(link, real);
    repo.git("config", "include.path", link + "/../x.cfg");
    warm();
    Files.writeString(tmp.resolve("a/x.cfg"), evil(), StandardOpenOption.APPEND);
    addAText("after\n");
    assertFalse(Files.exists(marker), "the planted filter ran");
  }

  /**
   * A review's finding: a write through a shared memory mapping changes a config file without
   * changing its times for up to ~30 s; a kept listing is used for {@link ConfigListings#MAX_AGE}
   * at most, whatever its files look like.
   */
  @Test
  void a_kept_listing_is_used_for_max_age_at_most() throws Exception {
    Instant[] now = {Instant.now().plus(Duration.ofHours(1))};
    Clock clock = new Clock() {
      @Override
      public java.time.ZoneId getZone() {
        return java.time.ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now[0];
      }
    };
    git = new Git(Git.resolve("git", System.getenv("PATH")), Git.DEFAULT_TIMEOUT, clock);
    warm();
    long kept = git.listings();
    now[0] = now[0].plus(ConfigListings.MAX_AGE).plusMillis(1);
    git.ok(place, "status", "--porcelain");
    assertEquals(kept + 1, git.listings(), "listed again once the kept listing is older than MAX_AGE");
  }

  @Test
  void a_worktree_config_that_appears_is_caught() throws Exception {
    repo.git("config", "extensions.worktreeConfig", "true");
    repo.git("worktree", "add", "--quiet", "-b", "w", tmp.resolve("w").toString());
    Path gitDir = repo.dir.resolve(".git/worktrees/w");
    place = new Git.Place(tmp.resolve("w"), gitDir, repo.dir.resolve(".git"), tmp.resolve("w"));
    Files.writeString(tmp.resolve("w/a.txt"), "warm\n");
    git.ok(place, "add", "a.txt");
    git.ok(place, "status", "--porcelain");
    long before = git.listings();
    git.ok(place, "status", "--porcelain");
    assertEquals(before, git.listings());
    Files.writeString(gitDir.resolve("config.worktree"), evil());
    Files.writeString(tmp.resolve("w/a.txt"), "after\n");
    git.ok(place, "add", "a.txt");
    assertFalse(Files.exists(marker), "the planted filter ran");
    assertEquals(before + 1, git.listings());
  }

  /** A worktree of the repository, made after the checkout's listing was kept, and its pinned place. */
  private Git.Place worktree(String name) {
    repo.git("worktree", "add", "--quiet", "-b", name, tmp.resolve(name).toString());
    return new Git.Place(tmp.resolve(name), repo.dir.resolve(".git/worktrees/" + name), repo.dir.resolve(".git"),
        tmp.resolve(name));
  }

  @Test
  void a_worktree_uses_the_checkouts_listing_while_it_reads_the_same_files_and_an_agents_filter_is_still_caught()
      throws Exception {
    warm();
    Git.Place w = worktree("w");
    long kept = git.listings();
    Files.writeString(tmp.resolve("w/a.txt"), "in the worktree\n");
    git.ok(w, "add", "a.txt");
    git.ok(w, "status", "--porcelain");
    assertEquals(kept, git.listings(), "the same system, global and repository files: the same listing");
    Files.writeString(repo.dir.resolve(".git/config"), evil(), StandardOpenOption.APPEND);
    Files.writeString(tmp.resolve("w/a.txt"), "changed\n");
    git.ok(w, "add", "a.txt");
    assertFalse(Files.exists(marker), "the planted filter ran");
    assertEquals(kept + 1, git.listings());
  }

  @Test
  void a_worktree_lists_on_its_own_when_the_listing_has_an_include_or_it_has_a_worktree_config() throws Exception {
    Files.writeString(tmp.resolve("inc.cfg"), "[user]\n\tname = x\n");
    repo.git("config", "include.path", tmp.resolve("inc.cfg").toString());
    warm();
    Git.Place w = worktree("w");
    long kept = git.listings();
    git.ok(w, "status", "--porcelain");
    assertEquals(kept + 1, git.listings(), "an include could read differently at another place");

    repo.git("config", "--unset", "include.path");
    warm();
    Git.Place v = worktree("v");
    repo.git("config", "extensions.worktreeConfig", "true");
    warm();
    Files.writeString(repo.dir.resolve(".git/worktrees/v/config.worktree"), evil());
    long before = git.listings();
    Files.writeString(tmp.resolve("v/a.txt"), "v\n");
    git.ok(v, "add", "a.txt");
    assertFalse(Files.exists(marker), "the worktree's own filter ran");
    assertEquals(before + 1, git.listings(), "its own config.worktree: its own listing");
  }

  @Test
  void a_file_changed_a_moment_ago_is_listed_again_until_it_has_settled() throws Exception {
    // an hour behind: every file looks as if it had just changed
    Git now = new Git(Git.resolve("git", System.getenv("PATH")), Git.DEFAULT_TIMEOUT,
        Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
    Files.writeString(repo.dir.resolve(".git/config"), "[user]\n\tname = x\n", StandardOpenOption.APPEND);
    now.ok(place, "rev-parse", "HEAD");
    now.ok(place, "rev-parse", "HEAD");
    assertEquals(2, now.listings(), "a change within the file system's tick could hide the next one");
  }

  @Test
  void the_listing_names_scope_and_origin_of_every_entry() {
    List<ConfigListings.Setting> settings = ConfigListings.parse(
        "system\0file:/etc/gitconfig\0a.b\nc\0local\0file:.git/config\0flag.without.value\0");
    assertEquals(List.of(new ConfigListings.Setting("system", "file:/etc/gitconfig", "a.b", "c"),
        new ConfigListings.Setting("local", "file:.git/config", "flag.without.value", "")), settings);
    assertTrue(ConfigListings.parse("").isEmpty());
  }

  @Test
  void the_entries_that_steer_a_push_are_kept_as_git_printed_them_up_to_their_cap() throws Exception {
    String listing = "system\0file:/etc/gitconfig\0http.sslverify\0"
        + "local\0file:.git/config\0url.https://m.example/.insteadof\nhttps://h.example/\0"
        + "local\0file:.git/config\0user.name\nSomeone\0"
        + "local\0file:.git/config\0remote.origin.url\n/srv/origin.git\0"
        + "command\0command line:\0http.sslverify\n\0";
    assertEquals("http.sslverify\0url.https://m.example/.insteadof\nhttps://h.example/\0"
        + "remote.origin.url\n/srv/origin.git\0http.sslverify\n\0", ConfigListings.steering(listing),
        "in order, without user.*, a key with no value apart from one with an empty value");

    // a real listing: what git prints for `url.*`, `http.*` and `remote.*` and nothing else
    repo.git("config", "http.proxy", "http://proxy.example:3128");
    repo.git("config", "core.editor", "vi");
    String listed = repo.git("config", "--show-scope", "--show-origin", "--null", "--list");
    String kept = ConfigListings.steering(listed + "\0");
    assertTrue(kept.contains("http.proxy\nhttp://proxy.example:3128\0"), kept);
    assertFalse(kept.contains("core.editor"), kept);

    StringBuilder many = new StringBuilder();
    for (int i = 0; i <= ConfigListings.STEERING_MAX_CHARS / 50; i++) { // entries of 59 characters with their NUL
      many.append("local\0file:.git/config\0url.https://mirror.example/a/.insteadof\nhttps://b.example/\0");
    }
    assertEquals(null, ConfigListings.steering(many.toString()), "over the cap: none kept, git is asked");
  }
}
