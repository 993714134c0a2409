package dev.orchestrate.item;

/**
 * The agent session of an item's last successful phase, which a red report of its checks
 * continues (with agent.resume).
 *
 * @param phase  the phase its attempt worked in
 * @param resume the profile and session id to continue
 */
public record LastSession(String phase, Progress.Resume resume) {
}
