package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A review done in the dashboard, end to end, in a real headless Chromium beside real runs of
 * {@code bin/orchestrate}: an item of a {@code review: required} pipeline in a worktree awaits
 * review; the reviewer opens the review view, reads its diff (a hostile file name and content
 * shown as text) and its gate, rejects it with notes, which the agent's next prompt holds; the
 * next run's fix awaits review again, the reviewer approves it, and it lands on main. Skipped, with
 * what to install, when chromium or chromedriver is not on PATH.
 */
class DashboardReviewBrowserIT {
  private static final Pattern URL = Pattern.compile("at (http://\\S+/)");
  private static final String NOTE = "REVIEW-NOTE-42: say hello to the reviewer";
  private static final String HOSTILE = "<script>window.pwned=1</script>";
  private static final String HOSTILE_NAME = "pwn<img src=x onerror=window.pwned=2>.txt";

  @TempDir
  Path dir;

  private Process serve;

  @BeforeEach
  void chromium() {
    WebDriver.require();
  }

  @AfterEach
  void stop() throws Exception {
    if (serve != null && serve.isAlive()) {
      serve.destroy();
      if (!serve.waitFor(30, TimeUnit.SECONDS)) {
        serve.destroyForcibly();
      }
    }
  }

  @Test
  void a_reviewer_rejects_with_notes_in_the_browser_the_agent_gets_them_and_the_approved_fix_lands()
      throws Exception {
    Path prompts = Files.createDirectories(dir.resolve("prompts"));
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        n=$(ls '%1$s' | wc -l)
        cat > '%1$s'/prompt-$n.md
        if grep -q 'REVIEW-NOTE-42' '%1$s'/prompt-$n.md; then
          echo 'hello, reviewer' > feature.txt
        else
          printf '%%s\\n' '%2$s' > feature.txt
          echo hostile > '%3$s'
        fi
        printf '%%s' '{"result": "phase_complete", "summary": "wrote feature.txt"}' > "$ORCHESTRATE_RESULT_FILE"
        """.formatted(prompts, HOSTILE, HOSTILE_NAME));
    GitRepo repo = GitRepo.init(dir.resolve("project"));
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n  - {id: A, title: Add the feature}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          workspace: worktree
        default_pipeline: one
        pipelines:
          one:
            review: required
            verify: [{name: tests, run: "test -s feature.txt"}]
            phases:
              - {name: build, instructions: "Build it."}
        """.formatted(agent));
    repo.write(".gitignore", "build/\n.orchestrate/\n");
    repo.commitAll("backlog and config");
    Path project = repo.dir;

    Launcher.Result first = Launcher.run(project, "--quiet", "run");
    assertEquals(0, first.exitCode(), first.err());
    serve = Launcher.builder(project, "serve", "--actions", "--port", "0")
        .redirectError(dir.resolve("serve-err.txt").toFile()).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
    String started = String.valueOf(out.readLine());
    Matcher url = URL.matcher(started);
    assertTrue(url.find(), started + Files.readString(dir.resolve("serve-err.txt")));
    assertTrue(started.contains("with actions"), started);
    String base = url.group(1);
    // The actions need the access token on loopback too; serve prints it once, on stderr.
    Matcher token = Pattern.compile("access token for this dashboard \\(shown once\\): (\\S+)")
        .matcher(Files.readString(dir.resolve("serve-err.txt")));
    assertTrue(token.find(), "the token on stderr: " + Files.readString(dir.resolve("serve-err.txt")));

    try (WebDriver browser = new WebDriver(dir.resolve("profile"))) {
      browser.open(base + "?token=" + token.group(1)); // sets the token's cookie, as a person's first visit
      browser.click("header nav a[href='/review']");
      browser.await("A in the review view", "return document.querySelectorAll("
          + "'table[data-list=awaiting] a[href=\"/item?id=A\"]').length", v -> v.asInt() == 1, 30);
      browser.click("table[data-list=awaiting] a[href='/item?id=A']");
      browser.await("A's page", "return document.querySelector('h1') && document.querySelector('h1').textContent",
          v -> v.asText().equals("A"), 30);
      String diff = browser.text("return document.getElementById('diff').innerText");
      assertTrue(diff.contains("+" + HOSTILE), "the change, as text: " + diff);
      assertTrue(diff.contains("diff --git a/" + HOSTILE_NAME), "a hostile file name, as text: " + diff);
      assertEquals("passed", browser.text("return document.querySelector('[data-gates]').textContent"));
      assertTrue(browser.text("return document.querySelector('table.gates').innerText").contains("gate tests: passed"));
      noScriptRan(browser);

      browser.script("document.querySelector('form[data-action=reject] textarea').value = '" + NOTE + "'; return 1;");
      browser.click("form[data-action=reject] button");
      browser.await("the rejection's result", "var r = document.querySelector('[data-result]');"
          + " return r ? r.textContent : '';", v -> v.asText().startsWith("Rejected A: in_progress"), 30);

      Launcher.Result second = Launcher.run(project, "--quiet", "run");
      assertEquals(0, second.exitCode(), second.err());
      try (Stream<Path> files = Files.list(prompts)) {
        assertEquals(2, files.count(), "one prompt per attempt");
      }
      String prompt = Files.readString(prompts.resolve("prompt-1.md"));
      assertTrue(prompt.contains(NOTE), "the agent's next prompt has the reviewer's notes: " + prompt);

      browser.open(base + "review");
      browser.click("table[data-list=awaiting] a[href='/item?id=A']");
      browser.await("the fix in A's diff", "var d = document.getElementById('diff'); return d ? d.innerText : '';",
          v -> v.asText().contains("+hello, reviewer"), 30);
      browser.click("form[data-action=approve] button");
      browser.await("the approval's result", "var r = document.querySelector('[data-result]');"
          + " return r ? r.textContent : '';", v -> v.asText().startsWith("Approved A: done"), 30);
      noScriptRan(browser);
    }
    assertEquals("hello, reviewer", repo.git("show", "main:feature.txt"), "the approved fix landed on main");
    assertFalse(Files.readString(dir.resolve("serve-err.txt")).contains("WARN"),
        Files.readString(dir.resolve("serve-err.txt")));
  }

  private static void noScriptRan(WebDriver browser) throws Exception {
    assertEquals("undefined", browser.text("return typeof window.pwned;"), "a script of the repository ran");
  }
}
