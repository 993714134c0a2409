package dev.orchestrate.config;

import dev.orchestrate.notify.NotifySink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The secrets a config names, and which child process gets which (docs/security.md, Secrets).
 * Orchestrate's own, every webhook's {@code secret_env} and the summarizer's {@code api_key_env},
 * reach no child: not an agent (the summarizer's key only with {@code agent.pass_summarizer_key}),
 * not a gate, set-up step, checks or pull-request command. The agents' ({@code agent.secret_env} of
 * every profile) reach the agent and none of the project's commands. A variable that is secret
 * only by its name ({@code *_TOKEN}, ...) is the user's own: it is passed on, and masked.
 *
 * @param summarizerKey the summarizer's {@code api_key_env}; null when there is none
 * @param webhooks      every webhook's {@code secret_env}
 * @param agents        {@code agent.secret_env} of every profile
 * @param values        literal secrets of the config itself: every webhook header's value
 */
public record SecretEnv(String summarizerKey, Set<String> webhooks, Set<String> agents, List<String> values) {
  /** No secret named: children get the whole environment. */
  public static final SecretEnv NONE = new SecretEnv(null, Set.of(), Set.of(), List.of());

  public SecretEnv {
    webhooks = Set.copyOf(webhooks);
    agents = Set.copyOf(agents);
    values = List.copyOf(values);
  }

  /** Only the summarizer's key (null: none) is withheld, from agents that are not passed it. */
  public static SecretEnv summarizerOnly(String summarizerKey) {
    return new SecretEnv(summarizerKey, Set.of(), Set.of(), List.of());
  }

  /** The secrets {@code config} names. */
  public static SecretEnv of(Config config) {
    Set<String> webhooks = new LinkedHashSet<>();
    List<String> values = new ArrayList<>();
    for (NotifySink sink : config.notifications()) {
      if (sink instanceof NotifySink.Webhook webhook) {
        webhook.secretEnv().ifPresent(webhooks::add);
        values.addAll(webhook.headers().values());
      }
    }
    Set<String> agents = new LinkedHashSet<>(config.agent().secretEnv());
    for (AgentConfig profile : config.profiles().values()) {
      agents.addAll(profile.secretEnv());
    }
    return new SecretEnv(config.context().summarizer().apiKeyEnv(), webhooks, agents, values);
  }

  /** Every variable named: all of them are masked wherever their values could appear. */
  public Set<String> names() {
    Set<String> names = new LinkedHashSet<>(webhooks);
    names.addAll(agents);
    if (summarizerKey != null) {
      names.add(summarizerKey);
    }
    return names;
  }

  /** {@code env} as {@code agent} gets it (before its own {@code agent.env}). */
  public Map<String, String> forAgent(Map<String, String> env, AgentConfig agent) {
    Map<String, String> kept = new HashMap<>(env);
    kept.keySet().removeAll(webhooks);
    if (summarizerKey != null && !agent.passSummarizerKey()) {
      kept.remove(summarizerKey);
    }
    return kept;
  }

  /** {@code env} as the project's own commands get it: gates, set-up, checks, pull requests. */
  public Map<String, String> forCommands(Map<String, String> env) {
    Map<String, String> kept = new HashMap<>(env);
    kept.keySet().removeAll(webhooks);
    kept.keySet().removeAll(agents);
    if (summarizerKey != null) {
      kept.remove(summarizerKey);
    }
    return kept;
  }
}
