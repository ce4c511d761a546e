/** The throwaway PostgreSQL cluster the store's tests run against: it lives in bench/ (the bench's `talaria.store.pg` starts one too). */
export { pgBin, startCluster, sweepClusters, type Cluster } from '../../../bench/pg-cluster.js';
