package dev.orchestrate.jobs;

import static dev.orchestrate.jobs.TestAgents.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.testing.CapturedLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Planted links (issue 13.5) and secrets (issue 13.3) at the level of one job. */
class AgentIsolationTest {
  /** Expected warnings (a job directory that already exists, a deferred integration) are asserted, not printed. */
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(JobDirectory.class);

  @TempDir
  Path dir;

  private Path script(String body) throws IOException {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\n" + body);
    return script;
  }

  private JobRequest request(AgentConfig agent, String jobName) {
    return new JobRequest("A", "build", 1, "The prompt.\n", agent, dir, dir.resolve("state/jobs/" + jobName));
  }

  @Test
  void links_planted_at_the_next_jobs_directory_prompt_and_log_are_not_written_through() throws Exception {
    Path outside = dir.resolve("outside.txt");
    Files.writeString(outside, "precious\n");
    Path jobs = Files.createDirectories(dir.resolve("state/jobs"));
    // the next job's directory is a link out of the state directory
    Files.createSymbolicLink(jobs.resolve("job-2"), dir);
    // and the one after has its directory, with links at its prompt and log
    Path third = Files.createDirectories(jobs.resolve("job-3"));
    Files.createSymbolicLink(third.resolve("prompt.md"), outside);
    Files.createSymbolicLink(third.resolve("output.log"), outside);
    Files.createSymbolicLink(third.resolve("result.json"), outside);
    AgentRunner runner = new AgentRunner(Clock.systemUTC());
    AgentConfig agent = config(List.of("bash", script("echo hello from the agent\n").toString()));

    for (String job : List.of("job-2", "job-3")) {
      AgentOutcome outcome = runner.start(request(agent, job)).await();
      assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
      Path jobDir = jobs.resolve(job);
      assertFalse(Files.isSymbolicLink(jobDir));
      assertFalse(Files.isSymbolicLink(jobDir.resolve("prompt.md")));
      assertEquals("The prompt.\n", Files.readString(jobDir.resolve("prompt.md")));
      assertEquals("hello from the agent\n", Files.readString(jobDir.resolve("output.log")));
    }
    assertEquals("precious\n", Files.readString(outside));
    assertFalse(Files.exists(dir.resolve("prompt.md")), "nothing written where the planted link pointed");
    List<String> warnings = logs.warnings();
    assertEquals(2, warnings.size(), warnings.toString());
    assertTrue(warnings.stream().allMatch(w -> w.contains("already existed (planted by an agent")),
        warnings.toString());
  }

  @Test
  void a_jobs_directory_replaced_by_a_link_is_refused_and_nothing_is_written_through_it() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createDirectories(dir.resolve("state"));
    Files.createSymbolicLink(dir.resolve("state/jobs"), elsewhere);
    AgentRunner runner = new AgentRunner(Clock.systemUTC());
    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> runner.start(request(config(List.of("true")), "job-1")));
    assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
    try (var files = Files.list(elsewhere)) {
      assertEquals(0, files.count());
    }
  }

  @Test
  void an_agent_printing_its_environment_leaves_no_secret_in_its_log_outcome_or_result_file() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("OPENAI_API_KEY", "sk-openai-SECRET-1");
    env.put("SUMMARIZER_KEY", "summarizer-SECRET-2");
    env.put("PLAIN_SETTING", "visible-value");
    AgentConfig agent = TestAgents
        .withEnv(config(List.of("bash",
            script(
                """
                    env
                    echo "spread: sk-openai-""SECRET-1"
                    printf '{"result": "blocked", "summary": "%s", "context": "%s", "memories": [{"kind": "semantic", "content": "%s"}]}' \
                      "$OPENAI_API_KEY" "$DEPLOY_TOKEN" "$LISTED" > "$ORCHESTRATE_RESULT_FILE"
                    env >&2
                    exit 1
                    """)
                .toString())),
            Map.of("DEPLOY_TOKEN", "deploy-SECRET-3", "LISTED", "listed-SECRET-4"))
        .withSafety(List.of("LISTED"), true, false);
    AgentRunner runner = new AgentRunner(Clock.systemUTC(), env, "SUMMARIZER_KEY");
    JobRequest request = request(agent, "job-1");

    AgentOutcome outcome = runner.start(request).await();

    assertEquals(AgentResult.BLOCKED, outcome.result(), outcome.context());
    assertEquals("***", outcome.summary());
    assertEquals("***", outcome.context());
    assertEquals("***", outcome.memories().get(0).content());
    String log = Files.readString(request.logFile());
    String result = Files.readString(request.resultFile());
    for (String secret : List.of("sk-openai-SECRET-1", "summarizer-SECRET-2", "deploy-SECRET-3", "listed-SECRET-4")) {
      assertFalse(log.contains(secret), secret + " in output.log");
      assertFalse(result.contains(secret), secret + " in result.json");
    }
    assertTrue(log.contains("OPENAI_API_KEY=***"), log);
    assertTrue(log.contains("spread: ***"), log);
    assertTrue(log.contains("PLAIN_SETTING=visible-value"), "other variables stay readable");
    assertFalse(log.contains("SUMMARIZER_KEY="), "the summarizer's key is not passed to agents");
  }

  @Test
  void the_summarizer_key_is_passed_when_asked() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("SUMMARIZER_KEY", "summarizer-SECRET-2");
    AgentConfig agent = config(List.of("bash", script("echo \"key=${SUMMARIZER_KEY:-none}\"\n").toString()))
        .withSafety(List.of(), true, true);
    AgentOutcome outcome = new AgentRunner(Clock.systemUTC(), env, "SUMMARIZER_KEY")
        .start(request(agent, "job-1")).await();
    assertEquals("key=***", outcome.summary(), "present, and masked");
  }

  @Test
  void a_presets_answer_and_error_carry_no_secret_and_keep_the_usage_the_agent_reported() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("OPENAI_API_KEY", "sk-openai-SECRET-1");
    // The secret is split across two writes of one JSON line, and once more JSON-escaped (\\u0073 is 's'),
    // which only the reader decodes; usage and cost ride on the same result event.
    Path agentScript = script(
        """
            printf '{"type":"assistant","message":{"content":[{"type":"text","text":"key sk-openai-SEC'
            sleep 0.3
            printf 'RET-1 seen"}]}}\\n'
            printf '{"type":"result","subtype":"success","is_error":true,"result":"API Error: bad key \\\\u0073k-openai-SECRET-1",'
            printf '"total_cost_usd":0.0042,"usage":{"input_tokens":10,"output_tokens":5,'
            printf '"cache_read_input_tokens":3,"cache_creation_input_tokens":2}}\\n'
            exit 1
            """);
    AgentConfig plain = config(List.of("bash", agentScript.toString()));
    AgentConfig agent = new AgentConfig(plain.command(), plain.timeout(), plain.killGrace(), plain.env(),
        plain.resultFallback(), plain.logMaxBytes(), plain.outputTailChars(), AgentPreset.CLAUDE, List.of(), null);
    JobRequest request = request(agent, "job-1");

    AgentOutcome outcome = new AgentRunner(Clock.systemUTC(), env, SecretEnv.NONE).start(request).await();

    assertEquals(AgentResult.FAILED, outcome.result(), outcome.context());
    assertEquals("the agent reported an error (exit code 1): API Error: bad key ***", outcome.context());
    assertEquals(new Usage(10L, 5L, 3L, 2L, 0.0042), outcome.usage());
    String log = Files.readString(request.logFile());
    assertFalse(log.contains("sk-openai-SECRET-1"), log);
    assertTrue(log.contains("key *** seen"), log);
  }
  /**
   * Issue 43: the webhook's signing secret (a name no suffix rule knows) reached every agent and
   * gate. Orchestrate's own secrets reach no child; the agent's reach the agent only; each is
   * masked wherever it is printed.
   */
  @Test
  void each_child_gets_only_the_secrets_meant_for_it_and_every_named_secret_is_masked() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("HOOK_SIGNING", "hook-signing-VALUE-1");
    env.put("SUMMARY_KEY", "summary-key-VALUE-2");
    env.put("AGENT_KEY", "agent-key-VALUE-3");
    env.put("PLAIN", "plain-VALUE-4");
    SecretEnv secrets = new SecretEnv("SUMMARY_KEY", Set.of("HOOK_SIGNING"), Set.of("AGENT_KEY"),
        List.of("Bearer header-VALUE-5"));
    String print = "for v in HOOK_SIGNING SUMMARY_KEY AGENT_KEY PLAIN; do echo \"$v=${!v-unset}\"; done";
    Path agentScript = script(print + " > agent-env.txt; " + print
        + "; echo 'header Bearer header-VALUE-5'\necho '{\"result\":\"phase_complete\",\"summary\":\"ok\"}' > \"$ORCHESTRATE_RESULT_FILE\"\n");
    AgentConfig plain = config(List.of("bash", agentScript.toString()));
    AgentConfig agent = plain.withSafety(List.of("AGENT_KEY"), plain.stopLeftoverProcesses(), false);
    JobRequest.Steps steps = new JobRequest.Steps(List.of(new ProjectCommand("deps",
        List.of("bash", "-c", print.replace("echo", "echo setup") + " > setup-env.txt"), "deps",
        Duration.ofMinutes(1))), null, null, List.of(
            new ProjectCommand("tests",
                List.of("bash", "-c", print + " > gate-env.txt; " + print), "tests", Duration.ofMinutes(1))));
    JobRequest request = new JobRequest("A", "build", 1, "The prompt.\n", agent, dir,
        dir.resolve("state/jobs/job-1"), null, steps);

    AgentOutcome outcome = new AgentRunner(Clock.systemUTC(), env, secrets).start(request).await();

    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals("HOOK_SIGNING=unset\nSUMMARY_KEY=unset\nAGENT_KEY=agent-key-VALUE-3\nPLAIN=plain-VALUE-4\n",
        Files.readString(dir.resolve("agent-env.txt")), "the agent: its own secret, none of orchestrate's");
    String commands = "HOOK_SIGNING=unset\nSUMMARY_KEY=unset\nAGENT_KEY=unset\nPLAIN=plain-VALUE-4\n";
    assertEquals(commands, Files.readString(dir.resolve("gate-env.txt")), "a gate: no named secret");
    assertEquals(commands.lines().map(line -> "setup " + line + "\n").collect(Collectors.joining()),
        Files.readString(dir.resolve("setup-env.txt")), "a set-up step: no named secret");
    String log = Files.readString(request.logFile());
    assertTrue(log.contains("AGENT_KEY=***"), log);
    assertTrue(log.contains("header ***"), "a webhook header's value is masked too: " + log);
    assertFalse(log.contains("VALUE-3") || log.contains("VALUE-5"), log);
  }
}
