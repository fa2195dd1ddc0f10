package policy

// maxHomePolicyBytes bounds $AIRLOCK_HOME/policy.yaml: far above any real
// policy, far below what would stall the hook.
const maxHomePolicyBytes = 16 << 20
