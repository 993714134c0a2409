package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Function;

/**
 * One tool: its name, what the model is told of it, its input schema, whether it changes the state
 * (an action, offered only with {@code --allow-actions}), and what a call does: a JSON object, the
 * result's {@code structuredContent}.
 */
record Tool(String name, String title, String description, Schema input, boolean action,
    Function<Arguments, ObjectNode> run) {
}
