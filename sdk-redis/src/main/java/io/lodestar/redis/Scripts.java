package io.lodestar.redis;

/** The Lua scripts of the registry, loaded from resources once per JVM. */
final class Scripts {
    static final LuaScript REGISTER_INSTANCE = LuaScript.load("register_instance");
    static final LuaScript RENEW_INSTANCE = LuaScript.load("renew_instance");
    static final LuaScript DEREGISTER_INSTANCE = LuaScript.load("deregister_instance");
    static final LuaScript UPDATE_INSTANCE = LuaScript.load("update_instance");
    static final LuaScript SWEEP_SERVICE = LuaScript.load("sweep_service");
    static final LuaScript DUE_SERVICES = LuaScript.load("due_services");
    static final LuaScript ELECT_SWEEPER = LuaScript.load("elect_sweeper");
    static final LuaScript READ_SERVICES = LuaScript.load("read_services");
    static final LuaScript READ_SERVICE_PAGE = LuaScript.load("read_service_page");
    static final LuaScript INDEX_SERVICE = LuaScript.load("index_service");
    /** Shared by both namespace indexes (services, configs), as the next one. */
    static final LuaScript READ_INDEX = LuaScript.load("read_index");
    static final LuaScript READ_LEASES = LuaScript.load("read_leases");
    static final LuaScript PURGE_SERVICE = LuaScript.load("purge_service");
    /** Shared by both namespace indexes (services, configs). */
    static final LuaScript PURGE_INDEX_ENTRY = LuaScript.load("purge_index_entry");

    private Scripts() {
    }
}
