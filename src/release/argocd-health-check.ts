import { REDIS_CLUSTER_GROUP, REDIS_CLUSTER_KIND } from '../api/api-group';

/**
 * Argo CD's health check for RedisClusters, in the Lua Argo CD runs (gopher-lua, with only the base, package and
 * table libraries: no `string` functions). It reads what the controller writes (operator/rediscluster/cluster-status.ts):
 * - no status yet, or a status of an older generation: Progressing (the controller has not seen this spec);
 * - phase Ready: Healthy;
 * - Provisioning (first start, scaling, rolling update): Progressing;
 * - FailingOver (no writable primary until the promotion completes), Degraded, Failed: Degraded, with the
 *   condition message that says why;
 * - any other phase: Unknown, so a newer controller's phase is never reported Healthy by an older check.
 * Argo CD itself reports Missing for a RedisCluster that is not in the cluster and Progressing while one is deleted.
 */
export const REDIS_CLUSTER_HEALTH_LUA = `-- redkite: health of a RedisCluster (${REDIS_CLUSTER_GROUP}/${REDIS_CLUSTER_KIND})
local health = {}
local status = obj.status
if status == nil or status.observedGeneration == nil then
  health.status = "Progressing"
  health.message = "Waiting for the redkite controller to observe the RedisCluster"
  return health
end
local generation = obj.metadata.generation
if generation ~= nil and status.observedGeneration < generation then
  health.status = "Progressing"
  health.message = "Waiting for the redkite controller to observe generation " .. tostring(generation)
  return health
end
local function condition(type)
  if status.conditions == nil then
    return nil
  end
  for _, candidate in ipairs(status.conditions) do
    if candidate.type == type then
      return candidate
    end
  end
  return nil
end
local function message(type, fallback)
  local found = condition(type)
  if found ~= nil and found.message ~= nil and found.message ~= "" then
    return found.message
  end
  return fallback
end
local phase = status.phase
if phase == "Ready" then
  health.status = "Healthy"
  health.message = message("Ready", "All pods serve")
elseif phase == "Provisioning" then
  health.status = "Progressing"
  health.message = message("Ready", "Provisioning")
elseif phase == "FailingOver" then
  health.status = "Degraded"
  health.message = "Failing over: " .. message("Available", "no writable primary")
elseif phase == "Degraded" then
  health.status = "Degraded"
  health.message = message("Degraded", "Degraded")
elseif phase == "Failed" then
  health.status = "Degraded"
  health.message = message("Ready", "Failed")
else
  health.status = "Unknown"
  health.message = "Unknown phase " .. tostring(phase)
end
return health
`;

/** The argocd-cm key under which Argo CD looks up the health check of a kind (`resource.customizations.health.<group>_<kind>`). */
export const REDIS_CLUSTER_HEALTH_CONFIG_KEY = `resource.customizations.health.${REDIS_CLUSTER_GROUP}_${REDIS_CLUSTER_KIND}`;
