package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.jobs.Secrets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The URL a pull-request command printed, the masking of credentials, the placeholders' substitution. */
class PushOutputTest {
  @Test
  void the_last_http_url_is_the_pull_requests_address() {
    assertEquals("https://github.com/acme/app/pull/12", PushOutput.lastUrl("""
        Creating pull request for orchestrate/A into main in acme/app
        Warning: see https://docs.github.com/en/help for help

        https://github.com/acme/app/pull/12
        """));
    assertEquals("http://gitlab.local/g/p/-/merge_requests/3",
        PushOutput.lastUrl("!3 opened: http://gitlab.local/g/p/-/merge_requests/3."));
    assertEquals("https://forge.example/pr/9?tab=files#top",
        PushOutput.lastUrl("(https://forge.example/pr/9?tab=files#top)"));
    assertNull(PushOutput.lastUrl("created, no link; ftp://example.org is not one"));
    assertNull(PushOutput.lastUrl(null));
  }

  @Test
  void a_url_ends_at_a_control_character_and_loses_its_user_part() {
    assertEquals("https://forge.example/pr/1", PushOutput.lastUrl("https://forge.example/pr/1\u001b]8;;evil\u0007"));
    assertEquals("https://forge.example/pr/2", PushOutput.lastUrl("https://bot:tok@forge.example/pr/2"));
  }

  @Test
  void credentials_in_urls_and_secret_variables_are_masked() {
    // The agents' mask (jobs/Secrets), as a run passes it in: secret-named variables and agent.secret_env.
    PushOutput mask = PushOutput.of(Secrets.forAgent(Map.of("GH_TOKEN", "ghp_abcdef123456", "CI_API_KEY",
        "k3y-value", "SHORT_TOKEN", "abc", "HOME", "/root"), Config.defaults().agent(), SecretEnv.NONE)::mask);
    assertEquals("fatal: unable to access 'https://***@github.com/acme/app.git/': 403",
        mask.mask("fatal: unable to access 'https://user:ghp_abcdef123456@github.com/acme/app.git/': 403"));
    assertEquals("push to https://***@host/x and ssh://***@host:22/y", mask.mask(
        "push to https://u:p@ss@host/x and ssh://git@host:22/y"));
    assertEquals("token *** and key *** in /root, abc stays", mask.mask(
        "token ghp_abcdef123456 and key k3y-value in /root, abc stays"));
  }

  @Test
  void a_failures_tail_is_capped_and_shows_no_control_characters() {
    PushOutput mask = PushOutput.of(text -> text);
    String tail = mask.tail("x".repeat(5000) + "\u001b[31mred\u202eevil");
    assertEquals(PushOutput.TAIL_MAX_CHARS + 3, tail.length());
    assertEquals("...", tail.substring(0, 3));
    assertEquals("?[31mred?evil", tail.substring(tail.length() - 13));
  }

  @Test
  void placeholders_become_arguments_of_a_list_and_quoted_variables_of_a_shell_command() {
    Map<String, String> values = Map.of("branch", "orchestrate/A", "base", "main", "item", "A",
        "title", "x'; rm -rf ~ #{branch}", "body_file", "/s/jobs/A/pull-request.md");
    ProjectCommand list = new ProjectCommand("pull_request", List.of("gh", "pr", "create", "--title", "{title}",
        "--head={branch}", "--body-file", "{body_file}", "{unknown}"), "gh ...", Duration.ofMinutes(1));
    assertEquals(List.of("gh", "pr", "create", "--title", "x'; rm -rf ~ #{branch}", "--head=orchestrate/A",
        "--body-file", "/s/jobs/A/pull-request.md", "{unknown}"), PullRequestCommand.argv(list, values));
    ProjectCommand shell = ProjectCommand.shell("pull_request", "glab mr create -t {title} -s {branch}",
        Duration.ofMinutes(1));
    assertEquals(List.of("/bin/sh", "-c",
        "glab mr create -t \"${ORCHESTRATE_PR_TITLE}\" -s \"${ORCHESTRATE_PR_BRANCH}\""),
        PullRequestCommand.argv(shell, values));
  }
}
