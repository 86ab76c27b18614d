package io.lodestar.redis;

/** The Lua scripts of the config service, loaded from resources once per JVM (the registry's, and the two both use for the namespace index, are in Scripts). */
final class ConfigScripts {
    static final LuaScript SET_CONFIG = LuaScript.load("set_config");
    static final LuaScript REMOVE_CONFIG = LuaScript.load("remove_config");
    static final LuaScript ROLLBACK_CONFIG = LuaScript.load("rollback_config");
    static final LuaScript READ_CONFIG = LuaScript.load("read_config");
    static final LuaScript READ_CONFIG_SINCE = LuaScript.load("read_config_since");
    static final LuaScript READ_CONFIG_HISTORY = LuaScript.load("read_config_history");
    static final LuaScript INDEX_CONFIG = LuaScript.load("index_config");
    static final LuaScript PURGE_CONFIG = LuaScript.load("purge_config");
    static final LuaScript START_GRAY = LuaScript.load("start_gray");
    static final LuaScript UPDATE_GRAY = LuaScript.load("update_gray");
    static final LuaScript PROMOTE_GRAY = LuaScript.load("promote_gray");
    static final LuaScript ABORT_GRAY = LuaScript.load("abort_gray");
    static final LuaScript READ_GRAY = LuaScript.load("read_gray");

    private ConfigScripts() {
    }
}
