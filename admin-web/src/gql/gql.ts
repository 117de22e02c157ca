/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query AuditLog(\n    $action: String\n    $targetType: String\n    $targetId: ID\n    $byUserId: ID\n    $aboutUserId: ID\n    $from: DateTime\n    $to: DateTime\n    $limit: Int\n    $cursor: String\n    $withTotal: Boolean = false\n  ) {\n    auditLog(\n      action: $action\n      targetType: $targetType\n      targetId: $targetId\n      byUserId: $byUserId\n      aboutUserId: $aboutUserId\n      from: $from\n      to: $to\n      limit: $limit\n      cursor: $cursor\n    ) {\n      data {\n        id at action changes\n        by { kind userId userName apiKeyId apiKeyName via }\n        target { type id label }\n      }\n      nextCursor\n    }\n    auditLogTotal(action: $action, targetType: $targetType, targetId: $targetId, byUserId: $byUserId, aboutUserId: $aboutUserId, from: $from, to: $to)\n      @include(if: $withTotal) {\n      count\n      exact\n    }\n  }\n": typeof types.AuditLogDocument,
    "\n  query UserApiKeys($userId: ID!, $cursor: String) {\n    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n": typeof types.UserApiKeysDocument,
    "\n  query MyApiKeys($cursor: String) {\n    myApiKeys(limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n": typeof types.MyApiKeysDocument,
    "\n  mutation ProvisionApiKey($userId: ID!, $input: CreateApiKeyInput!) {\n    provisionApiKey(userId: $userId, input: $input) { id name prefix key }\n  }\n": typeof types.ProvisionApiKeyDocument,
    "\n  mutation RevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n": typeof types.RevokeApiKeyDocument,
    "\n  mutation CreateMyApiKey($input: CreateApiKeyInput!) {\n    createMyApiKey(input: $input) { id name prefix key }\n  }\n": typeof types.CreateMyApiKeyDocument,
    "\n  mutation RevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n": typeof types.RevokeMyApiKeyDocument,
    "\n  mutation RotateUserApiKey($userId: ID!, $keyId: ID!, $input: RotateApiKeyInput) {\n    rotateUserApiKey(userId: $userId, keyId: $keyId, input: $input) { id name prefix key }\n  }\n": typeof types.RotateUserApiKeyDocument,
    "\n  mutation RotateMyApiKey($keyId: ID!, $input: RotateApiKeyInput) {\n    rotateMyApiKey(keyId: $keyId, input: $input) { id name prefix key }\n  }\n": typeof types.RotateMyApiKeyDocument,
    "\n  mutation BulkRevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n": typeof types.BulkRevokeApiKeyDocument,
    "\n  mutation BulkRevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n": typeof types.BulkRevokeMyApiKeyDocument,
    "\n  mutation BulkResolveTension($id: ID!) {\n    resolveTension(id: $id) { tension { id state version } }\n  }\n": typeof types.BulkResolveTensionDocument,
    "\n  mutation BulkDropTension($id: ID!) {\n    dropTension(id: $id) { tension { id state version } }\n  }\n": typeof types.BulkDropTensionDocument,
    "\n  mutation BulkReassignTension($id: ID!, $actorId: ID!) {\n    reassignTension(id: $id, input: { actorId: $actorId }) { tension { id version } }\n  }\n": typeof types.BulkReassignTensionDocument,
    "\n  mutation BulkSetTensionLead($id: ID!, $leadUserId: ID) {\n    setTensionLead(id: $id, input: { leadUserId: $leadUserId }) { tension { id version } }\n  }\n": typeof types.BulkSetTensionLeadDocument,
    "\n  query BulkMatchingTensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: 100, cursor: $cursor) {\n      data { id name }\n      nextCursor\n    }\n  }\n": typeof types.BulkMatchingTensionsDocument,
    "\n  mutation BulkDeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n": typeof types.BulkDeactivateUserDocument,
    "\n  query GlobalSearch($q: String!, $tensions: Boolean!, $users: Boolean!, $actors: Boolean!, $roles: Boolean!) {\n    tensions(q: $q, limit: 5) @include(if: $tensions) { data { id name } }\n    users(q: $q, limit: 5) @include(if: $users) { data { id name email } }\n    actors(q: $q, limit: 5) @include(if: $actors) { data { id name } }\n    roles(q: $q, limit: 5) @include(if: $roles) { data { id name code } }\n    apiKeySearch(q: $q, limit: 5) @include(if: $users) { data { id name prefix revokedAt user { id name } } }\n  }\n": typeof types.GlobalSearchDocument,
    "\n  fragment HistoryEntryFields on HistoryEntry {\n    version type occurredAt summary summaryKey summaryParams\n    by { kind userId userName apiKeyName via }\n  }\n": typeof types.HistoryEntryFieldsFragmentDoc,
    "\n  query TensionHistory($id: ID!, $limit: Int, $cursor: String) {\n    tensionHistory(id: $id, limit: $limit, cursor: $cursor) {\n      data { ...HistoryEntryFields }\n      nextCursor\n    }\n  }\n": typeof types.TensionHistoryDocument,
    "\n  query PickActors($q: String, $type: ActorType, $cursor: String) {\n    actors(q: $q, type: $type, limit: 20, cursor: $cursor) {\n      data { id name type }\n      nextCursor\n    }\n  }\n": typeof types.PickActorsDocument,
    "\n  query PickActor($id: ID!) {\n    actor(id: $id) { id name type }\n  }\n": typeof types.PickActorDocument,
    "\n  query PickUsers($q: String, $status: UserStatus, $cursor: String) {\n    users(q: $q, status: $status, limit: 20, cursor: $cursor) {\n      data { id name email type status }\n      nextCursor\n    }\n  }\n": typeof types.PickUsersDocument,
    "\n  query PickUser($id: ID!) {\n    user(id: $id) { id name email type status }\n  }\n": typeof types.PickUserDocument,
    "\n  query RoleOptions {\n    roles(limit: 100) {\n      data { id code name system inherits effectivePermissions }\n    }\n  }\n": typeof types.RoleOptionsDocument,
    "\n  query MyMfa {\n    myMfa { enrolled pending recoveryCodesLeft required }\n  }\n": typeof types.MyMfaDocument,
    "\n  mutation StartMfaEnrolment {\n    startMfaEnrolment { secret otpauthUri qrCodeSvg }\n  }\n": typeof types.StartMfaEnrolmentDocument,
    "\n  mutation ConfirmMfaEnrolment($code: String!) {\n    confirmMfaEnrolment(code: $code) { recoveryCodes }\n  }\n": typeof types.ConfirmMfaEnrolmentDocument,
    "\n  mutation DisableMyMfa($code: String!) {\n    disableMyMfa(code: $code)\n  }\n": typeof types.DisableMyMfaDocument,
    "\n  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {\n    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.RenameTensionDocument,
    "\n  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {\n    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.RescoreTensionDocument,
    "\n  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {\n    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.ReviseTensionContextDocument,
    "\n  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {\n    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.SetTensionLeadDocument,
    "\n  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {\n    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.ReassignTensionDocument,
    "\n  query TensionAsOf($id: ID!, $version: Int!, $before: Int!, $first: Boolean!) {\n    tension(id: $id, asOfVersion: $version) {\n      id name state score currentContext potentialFuture\n      actor { id name type }\n      lead { id name }\n      asOf { version occurredAt }\n    }\n    tensionChanges(id: $id, from: $before, to: $version) @skip(if: $first) {\n      from to changes { field from to }\n    }\n  }\n": typeof types.TensionAsOfDocument,
    "\n  query TensionChanges($id: ID!, $from: Int!, $to: Int!) {\n    tensionChanges(id: $id, from: $from, to: $to) {\n      from to changes { field from to }\n    }\n  }\n": typeof types.TensionChangesDocument,
    "\n  query PermissionCatalogue {\n    permissions\n  }\n": typeof types.PermissionCatalogueDocument,
    "\n  query Me {\n    me {\n      user { id name email type }\n      roles { id code name }\n      permissions\n      authenticatedBy\n    }\n  }\n": typeof types.MeDocument,
    "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input)\n  }\n": typeof types.ChangePasswordDocument,
    "\n  query AuditVocabulary {\n    auditVocabulary { actions targetTypes }\n  }\n": typeof types.AuditVocabularyDocument,
    "\n  query Actors($type: ActorType, $q: String, $limit: Int, $cursor: String) {\n    actors(type: $type, q: $q, limit: $limit, cursor: $cursor) {\n      data { id name type version tensionCount createdAt updatedAt }\n      nextCursor\n    }\n    actorsTotal(type: $type, q: $q) { count exact }\n  }\n": typeof types.ActorsDocument,
    "\n  mutation CreateActor($input: CreateActorInput!) {\n    createActor(input: $input) { id name type }\n  }\n": typeof types.CreateActorDocument,
    "\n  mutation UpdateActor($id: ID!, $input: UpdateActorInput!) {\n    updateActor(id: $id, input: $input) { id name type version }\n  }\n": typeof types.UpdateActorDocument,
    "\n  query ActorVersion($id: ID!) {\n    actor(id: $id) { id name type version }\n  }\n": typeof types.ActorVersionDocument,
    "\n  mutation DeleteActor($id: ID!) {\n    deleteActor(id: $id)\n  }\n": typeof types.DeleteActorDocument,
    "\n  query DashboardTensions($weeks: Int) {\n    dashboardTensions(weeks: $weeks) {\n      from\n      to\n      byState { state count }\n      aliveByScore { score count }\n      weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }\n      oldestAlive { id name score actorName createdAt }\n      actorLoad { actorId actorName alive total }\n    }\n  }\n": typeof types.DashboardTensionsDocument,
    "\n  query DashboardKeyUsage($days: Int) {\n    dashboardKeyUsage(days: $days) { from to days keys { keyId keyName prefix userId userName total requests } }\n  }\n": typeof types.DashboardKeyUsageDocument,
    "\n  query DashboardSignInFailures($days: Int) {\n    dashboardSignInFailures(days: $days) { from to days { day failed throttled } }\n  }\n": typeof types.DashboardSignInFailuresDocument,
    "\n  query DashboardFeedHealth {\n    dashboardFeedHealth { headPosition relays { name behind published leaseActive updatedAt } }\n  }\n": typeof types.DashboardFeedHealthDocument,
    "\n  query DashboardWebhookHealth {\n    dashboardWebhookHealth { endpoints enabled failing disabled retrying }\n  }\n": typeof types.DashboardWebhookHealthDocument,
    "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      user { id name }\n    }\n  }\n": typeof types.LoginDocument,
    "\n  mutation LoginMfa($input: LoginMfaInput!) {\n    loginMfa(input: $input) {\n      user { id name }\n    }\n  }\n": typeof types.LoginMfaDocument,
    "\n  query Role($id: ID!) {\n    role(id: $id) { id code name permissions inherits system effectivePermissions version }\n  }\n": typeof types.RoleDocument,
    "\n  mutation CreateRole($input: CreateRoleInput!) {\n    createRole(input: $input) { id }\n  }\n": typeof types.CreateRoleDocument,
    "\n  mutation UpdateRole($id: ID!, $input: UpdateRoleInput!) {\n    updateRole(id: $id, input: $input) { id code name permissions inherits system effectivePermissions version }\n  }\n": typeof types.UpdateRoleDocument,
    "\n  mutation DeleteRole($id: ID!) {\n    deleteRole(id: $id)\n  }\n": typeof types.DeleteRoleDocument,
    "\n  query Roles($limit: Int, $cursor: String) {\n    roles(limit: $limit, cursor: $cursor) {\n      data { id code name permissions inherits system effectivePermissions }\n      nextCursor\n    }\n    rolesTotal { count exact }\n  }\n": typeof types.RolesDocument,
    "\n  mutation SenseTension($input: SenseTensionInput!) {\n    senseTension(input: $input) {\n      tension { id }\n    }\n  }\n": typeof types.SenseTensionDocument,
    "\n  fragment TensionFields on Tension {\n    id name currentContext potentialFuture score state version createdAt updatedAt allowedCommands\n    actorId actor { id name type }\n    leadUserId lead { id name type status }\n  }\n": typeof types.TensionFieldsFragmentDoc,
    "\n  query Tension($id: ID!) {\n    tension(id: $id) { ...TensionFields }\n  }\n": typeof types.TensionDocument,
    "\n  mutation ResolveTension($id: ID!, $expectedVersion: Int) {\n    resolveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.ResolveTensionDocument,
    "\n  mutation DropTension($id: ID!, $expectedVersion: Int) {\n    dropTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.DropTensionDocument,
    "\n  mutation ReopenTension($id: ID!, $expectedVersion: Int) {\n    reopenTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.ReopenTensionDocument,
    "\n  mutation ReviveTension($id: ID!, $expectedVersion: Int) {\n    reviveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": typeof types.ReviveTensionDocument,
    "\n  mutation DiscardTension($id: ID!, $expectedVersion: Int) {\n    discardTension(id: $id, input: { expectedVersion: $expectedVersion }) { event { version } }\n  }\n": typeof types.DiscardTensionDocument,
    "\n  query Tensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $limit: Int, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: $limit, cursor: $cursor) {\n      data {\n        id name score state version updatedAt\n        actor { id name type }\n        lead { id name type status }\n      }\n      nextCursor\n    }\n    tensionsTotal(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore) {\n      count\n      exact\n    }\n  }\n": typeof types.TensionsDocument,
    "\n  query User($id: ID!) {\n    user(id: $id) {\n      id type email name status linkedActorId createdAt updatedAt version\n      linkedActor { id name }\n      roles { id code name effectivePermissions }\n    }\n  }\n": typeof types.UserDocument,
    "\n  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) { id name email linkedActorId version }\n  }\n": typeof types.UpdateUserDocument,
    "\n  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!, $expectedVersion: Int) {\n    setUserRoles(id: $id, roleIds: $roleIds, expectedVersion: $expectedVersion) { id version roles { id } }\n  }\n": typeof types.SetUserRolesDocument,
    "\n  mutation DeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n": typeof types.DeactivateUserDocument,
    "\n  mutation ReactivateUser($id: ID!) {\n    reactivateUser(id: $id) { id status version updatedAt }\n  }\n": typeof types.ReactivateUserDocument,
    "\n  mutation ResetUserPassword($id: ID!, $password: String!) {\n    resetUserPassword(id: $id, password: $password)\n  }\n": typeof types.ResetUserPasswordDocument,
    "\n  mutation ResetUserMfa($id: ID!) {\n    resetUserMfa(id: $id)\n  }\n": typeof types.ResetUserMfaDocument,
    "\n  query Users($type: UserType, $status: UserStatus, $q: String, $limit: Int, $cursor: String) {\n    users(type: $type, status: $status, q: $q, limit: $limit, cursor: $cursor) {\n      data { id type email name status roles { id name } linkedActor { id name } }\n      nextCursor\n    }\n    usersTotal(type: $type, status: $status, q: $q) { count exact }\n  }\n": typeof types.UsersDocument,
    "\n  mutation CreateUser($input: CreateUserInput!) {\n    createUser(input: $input) { id }\n  }\n": typeof types.CreateUserDocument,
    "\n  query Webhook($id: ID!) {\n    webhook(id: $id) { id url description types enabled disabledReason failingSince previousSecretExpiresAt version createdAt }\n  }\n": typeof types.WebhookDocument,
    "\n  query WebhookDeliveries($id: ID!, $status: String, $limit: Int, $cursor: String) {\n    webhookDeliveries(id: $id, status: $status, limit: $limit, cursor: $cursor) {\n      data { id eventType attempts status lastResponseStatus lastError durationMs lastAttemptAt nextAttemptAt createdAt }\n      nextCursor\n    }\n    webhookDeliveriesTotal(id: $id, status: $status) { count exact }\n  }\n": typeof types.WebhookDeliveriesDocument,
    "\n  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {\n    updateWebhook(id: $id, input: $input) { id url description types enabled disabledReason failingSince version }\n  }\n": typeof types.UpdateWebhookDocument,
    "\n  mutation RotateWebhookSecret($id: ID!, $overlapSeconds: Int) {\n    rotateWebhookSecret(id: $id, overlapSeconds: $overlapSeconds) { secret webhook { id previousSecretExpiresAt version } }\n  }\n": typeof types.RotateWebhookSecretDocument,
    "\n  mutation TestWebhook($id: ID!) {\n    testWebhook(id: $id) { id }\n  }\n": typeof types.TestWebhookDocument,
    "\n  mutation RetryWebhookDelivery($id: ID!, $deliveryId: ID!) {\n    retryWebhookDelivery(id: $id, deliveryId: $deliveryId) { id status nextAttemptAt }\n  }\n": typeof types.RetryWebhookDeliveryDocument,
    "\n  mutation DeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n": typeof types.DeleteWebhookDocument,
    "\n  query Webhooks($cursor: String) {\n    webhooks(limit: 50, cursor: $cursor) {\n      data { id url description types enabled disabledReason failingSince }\n      nextCursor\n    }\n  }\n": typeof types.WebhooksDocument,
    "\n  mutation CreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) { secret webhook { id } }\n  }\n": typeof types.CreateWebhookDocument,
    "\n  mutation Logout {\n    logout\n  }\n": typeof types.LogoutDocument,
};
const documents: Documents = {
    "\n  query AuditLog(\n    $action: String\n    $targetType: String\n    $targetId: ID\n    $byUserId: ID\n    $aboutUserId: ID\n    $from: DateTime\n    $to: DateTime\n    $limit: Int\n    $cursor: String\n    $withTotal: Boolean = false\n  ) {\n    auditLog(\n      action: $action\n      targetType: $targetType\n      targetId: $targetId\n      byUserId: $byUserId\n      aboutUserId: $aboutUserId\n      from: $from\n      to: $to\n      limit: $limit\n      cursor: $cursor\n    ) {\n      data {\n        id at action changes\n        by { kind userId userName apiKeyId apiKeyName via }\n        target { type id label }\n      }\n      nextCursor\n    }\n    auditLogTotal(action: $action, targetType: $targetType, targetId: $targetId, byUserId: $byUserId, aboutUserId: $aboutUserId, from: $from, to: $to)\n      @include(if: $withTotal) {\n      count\n      exact\n    }\n  }\n": types.AuditLogDocument,
    "\n  query UserApiKeys($userId: ID!, $cursor: String) {\n    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n": types.UserApiKeysDocument,
    "\n  query MyApiKeys($cursor: String) {\n    myApiKeys(limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n": types.MyApiKeysDocument,
    "\n  mutation ProvisionApiKey($userId: ID!, $input: CreateApiKeyInput!) {\n    provisionApiKey(userId: $userId, input: $input) { id name prefix key }\n  }\n": types.ProvisionApiKeyDocument,
    "\n  mutation RevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n": types.RevokeApiKeyDocument,
    "\n  mutation CreateMyApiKey($input: CreateApiKeyInput!) {\n    createMyApiKey(input: $input) { id name prefix key }\n  }\n": types.CreateMyApiKeyDocument,
    "\n  mutation RevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n": types.RevokeMyApiKeyDocument,
    "\n  mutation RotateUserApiKey($userId: ID!, $keyId: ID!, $input: RotateApiKeyInput) {\n    rotateUserApiKey(userId: $userId, keyId: $keyId, input: $input) { id name prefix key }\n  }\n": types.RotateUserApiKeyDocument,
    "\n  mutation RotateMyApiKey($keyId: ID!, $input: RotateApiKeyInput) {\n    rotateMyApiKey(keyId: $keyId, input: $input) { id name prefix key }\n  }\n": types.RotateMyApiKeyDocument,
    "\n  mutation BulkRevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n": types.BulkRevokeApiKeyDocument,
    "\n  mutation BulkRevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n": types.BulkRevokeMyApiKeyDocument,
    "\n  mutation BulkResolveTension($id: ID!) {\n    resolveTension(id: $id) { tension { id state version } }\n  }\n": types.BulkResolveTensionDocument,
    "\n  mutation BulkDropTension($id: ID!) {\n    dropTension(id: $id) { tension { id state version } }\n  }\n": types.BulkDropTensionDocument,
    "\n  mutation BulkReassignTension($id: ID!, $actorId: ID!) {\n    reassignTension(id: $id, input: { actorId: $actorId }) { tension { id version } }\n  }\n": types.BulkReassignTensionDocument,
    "\n  mutation BulkSetTensionLead($id: ID!, $leadUserId: ID) {\n    setTensionLead(id: $id, input: { leadUserId: $leadUserId }) { tension { id version } }\n  }\n": types.BulkSetTensionLeadDocument,
    "\n  query BulkMatchingTensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: 100, cursor: $cursor) {\n      data { id name }\n      nextCursor\n    }\n  }\n": types.BulkMatchingTensionsDocument,
    "\n  mutation BulkDeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n": types.BulkDeactivateUserDocument,
    "\n  query GlobalSearch($q: String!, $tensions: Boolean!, $users: Boolean!, $actors: Boolean!, $roles: Boolean!) {\n    tensions(q: $q, limit: 5) @include(if: $tensions) { data { id name } }\n    users(q: $q, limit: 5) @include(if: $users) { data { id name email } }\n    actors(q: $q, limit: 5) @include(if: $actors) { data { id name } }\n    roles(q: $q, limit: 5) @include(if: $roles) { data { id name code } }\n    apiKeySearch(q: $q, limit: 5) @include(if: $users) { data { id name prefix revokedAt user { id name } } }\n  }\n": types.GlobalSearchDocument,
    "\n  fragment HistoryEntryFields on HistoryEntry {\n    version type occurredAt summary summaryKey summaryParams\n    by { kind userId userName apiKeyName via }\n  }\n": types.HistoryEntryFieldsFragmentDoc,
    "\n  query TensionHistory($id: ID!, $limit: Int, $cursor: String) {\n    tensionHistory(id: $id, limit: $limit, cursor: $cursor) {\n      data { ...HistoryEntryFields }\n      nextCursor\n    }\n  }\n": types.TensionHistoryDocument,
    "\n  query PickActors($q: String, $type: ActorType, $cursor: String) {\n    actors(q: $q, type: $type, limit: 20, cursor: $cursor) {\n      data { id name type }\n      nextCursor\n    }\n  }\n": types.PickActorsDocument,
    "\n  query PickActor($id: ID!) {\n    actor(id: $id) { id name type }\n  }\n": types.PickActorDocument,
    "\n  query PickUsers($q: String, $status: UserStatus, $cursor: String) {\n    users(q: $q, status: $status, limit: 20, cursor: $cursor) {\n      data { id name email type status }\n      nextCursor\n    }\n  }\n": types.PickUsersDocument,
    "\n  query PickUser($id: ID!) {\n    user(id: $id) { id name email type status }\n  }\n": types.PickUserDocument,
    "\n  query RoleOptions {\n    roles(limit: 100) {\n      data { id code name system inherits effectivePermissions }\n    }\n  }\n": types.RoleOptionsDocument,
    "\n  query MyMfa {\n    myMfa { enrolled pending recoveryCodesLeft required }\n  }\n": types.MyMfaDocument,
    "\n  mutation StartMfaEnrolment {\n    startMfaEnrolment { secret otpauthUri qrCodeSvg }\n  }\n": types.StartMfaEnrolmentDocument,
    "\n  mutation ConfirmMfaEnrolment($code: String!) {\n    confirmMfaEnrolment(code: $code) { recoveryCodes }\n  }\n": types.ConfirmMfaEnrolmentDocument,
    "\n  mutation DisableMyMfa($code: String!) {\n    disableMyMfa(code: $code)\n  }\n": types.DisableMyMfaDocument,
    "\n  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {\n    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.RenameTensionDocument,
    "\n  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {\n    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.RescoreTensionDocument,
    "\n  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {\n    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.ReviseTensionContextDocument,
    "\n  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {\n    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.SetTensionLeadDocument,
    "\n  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {\n    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.ReassignTensionDocument,
    "\n  query TensionAsOf($id: ID!, $version: Int!, $before: Int!, $first: Boolean!) {\n    tension(id: $id, asOfVersion: $version) {\n      id name state score currentContext potentialFuture\n      actor { id name type }\n      lead { id name }\n      asOf { version occurredAt }\n    }\n    tensionChanges(id: $id, from: $before, to: $version) @skip(if: $first) {\n      from to changes { field from to }\n    }\n  }\n": types.TensionAsOfDocument,
    "\n  query TensionChanges($id: ID!, $from: Int!, $to: Int!) {\n    tensionChanges(id: $id, from: $from, to: $to) {\n      from to changes { field from to }\n    }\n  }\n": types.TensionChangesDocument,
    "\n  query PermissionCatalogue {\n    permissions\n  }\n": types.PermissionCatalogueDocument,
    "\n  query Me {\n    me {\n      user { id name email type }\n      roles { id code name }\n      permissions\n      authenticatedBy\n    }\n  }\n": types.MeDocument,
    "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input)\n  }\n": types.ChangePasswordDocument,
    "\n  query AuditVocabulary {\n    auditVocabulary { actions targetTypes }\n  }\n": types.AuditVocabularyDocument,
    "\n  query Actors($type: ActorType, $q: String, $limit: Int, $cursor: String) {\n    actors(type: $type, q: $q, limit: $limit, cursor: $cursor) {\n      data { id name type version tensionCount createdAt updatedAt }\n      nextCursor\n    }\n    actorsTotal(type: $type, q: $q) { count exact }\n  }\n": types.ActorsDocument,
    "\n  mutation CreateActor($input: CreateActorInput!) {\n    createActor(input: $input) { id name type }\n  }\n": types.CreateActorDocument,
    "\n  mutation UpdateActor($id: ID!, $input: UpdateActorInput!) {\n    updateActor(id: $id, input: $input) { id name type version }\n  }\n": types.UpdateActorDocument,
    "\n  query ActorVersion($id: ID!) {\n    actor(id: $id) { id name type version }\n  }\n": types.ActorVersionDocument,
    "\n  mutation DeleteActor($id: ID!) {\n    deleteActor(id: $id)\n  }\n": types.DeleteActorDocument,
    "\n  query DashboardTensions($weeks: Int) {\n    dashboardTensions(weeks: $weeks) {\n      from\n      to\n      byState { state count }\n      aliveByScore { score count }\n      weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }\n      oldestAlive { id name score actorName createdAt }\n      actorLoad { actorId actorName alive total }\n    }\n  }\n": types.DashboardTensionsDocument,
    "\n  query DashboardKeyUsage($days: Int) {\n    dashboardKeyUsage(days: $days) { from to days keys { keyId keyName prefix userId userName total requests } }\n  }\n": types.DashboardKeyUsageDocument,
    "\n  query DashboardSignInFailures($days: Int) {\n    dashboardSignInFailures(days: $days) { from to days { day failed throttled } }\n  }\n": types.DashboardSignInFailuresDocument,
    "\n  query DashboardFeedHealth {\n    dashboardFeedHealth { headPosition relays { name behind published leaseActive updatedAt } }\n  }\n": types.DashboardFeedHealthDocument,
    "\n  query DashboardWebhookHealth {\n    dashboardWebhookHealth { endpoints enabled failing disabled retrying }\n  }\n": types.DashboardWebhookHealthDocument,
    "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      user { id name }\n    }\n  }\n": types.LoginDocument,
    "\n  mutation LoginMfa($input: LoginMfaInput!) {\n    loginMfa(input: $input) {\n      user { id name }\n    }\n  }\n": types.LoginMfaDocument,
    "\n  query Role($id: ID!) {\n    role(id: $id) { id code name permissions inherits system effectivePermissions version }\n  }\n": types.RoleDocument,
    "\n  mutation CreateRole($input: CreateRoleInput!) {\n    createRole(input: $input) { id }\n  }\n": types.CreateRoleDocument,
    "\n  mutation UpdateRole($id: ID!, $input: UpdateRoleInput!) {\n    updateRole(id: $id, input: $input) { id code name permissions inherits system effectivePermissions version }\n  }\n": types.UpdateRoleDocument,
    "\n  mutation DeleteRole($id: ID!) {\n    deleteRole(id: $id)\n  }\n": types.DeleteRoleDocument,
    "\n  query Roles($limit: Int, $cursor: String) {\n    roles(limit: $limit, cursor: $cursor) {\n      data { id code name permissions inherits system effectivePermissions }\n      nextCursor\n    }\n    rolesTotal { count exact }\n  }\n": types.RolesDocument,
    "\n  mutation SenseTension($input: SenseTensionInput!) {\n    senseTension(input: $input) {\n      tension { id }\n    }\n  }\n": types.SenseTensionDocument,
    "\n  fragment TensionFields on Tension {\n    id name currentContext potentialFuture score state version createdAt updatedAt allowedCommands\n    actorId actor { id name type }\n    leadUserId lead { id name type status }\n  }\n": types.TensionFieldsFragmentDoc,
    "\n  query Tension($id: ID!) {\n    tension(id: $id) { ...TensionFields }\n  }\n": types.TensionDocument,
    "\n  mutation ResolveTension($id: ID!, $expectedVersion: Int) {\n    resolveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.ResolveTensionDocument,
    "\n  mutation DropTension($id: ID!, $expectedVersion: Int) {\n    dropTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.DropTensionDocument,
    "\n  mutation ReopenTension($id: ID!, $expectedVersion: Int) {\n    reopenTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.ReopenTensionDocument,
    "\n  mutation ReviveTension($id: ID!, $expectedVersion: Int) {\n    reviveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n": types.ReviveTensionDocument,
    "\n  mutation DiscardTension($id: ID!, $expectedVersion: Int) {\n    discardTension(id: $id, input: { expectedVersion: $expectedVersion }) { event { version } }\n  }\n": types.DiscardTensionDocument,
    "\n  query Tensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $limit: Int, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: $limit, cursor: $cursor) {\n      data {\n        id name score state version updatedAt\n        actor { id name type }\n        lead { id name type status }\n      }\n      nextCursor\n    }\n    tensionsTotal(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore) {\n      count\n      exact\n    }\n  }\n": types.TensionsDocument,
    "\n  query User($id: ID!) {\n    user(id: $id) {\n      id type email name status linkedActorId createdAt updatedAt version\n      linkedActor { id name }\n      roles { id code name effectivePermissions }\n    }\n  }\n": types.UserDocument,
    "\n  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) { id name email linkedActorId version }\n  }\n": types.UpdateUserDocument,
    "\n  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!, $expectedVersion: Int) {\n    setUserRoles(id: $id, roleIds: $roleIds, expectedVersion: $expectedVersion) { id version roles { id } }\n  }\n": types.SetUserRolesDocument,
    "\n  mutation DeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n": types.DeactivateUserDocument,
    "\n  mutation ReactivateUser($id: ID!) {\n    reactivateUser(id: $id) { id status version updatedAt }\n  }\n": types.ReactivateUserDocument,
    "\n  mutation ResetUserPassword($id: ID!, $password: String!) {\n    resetUserPassword(id: $id, password: $password)\n  }\n": types.ResetUserPasswordDocument,
    "\n  mutation ResetUserMfa($id: ID!) {\n    resetUserMfa(id: $id)\n  }\n": types.ResetUserMfaDocument,
    "\n  query Users($type: UserType, $status: UserStatus, $q: String, $limit: Int, $cursor: String) {\n    users(type: $type, status: $status, q: $q, limit: $limit, cursor: $cursor) {\n      data { id type email name status roles { id name } linkedActor { id name } }\n      nextCursor\n    }\n    usersTotal(type: $type, status: $status, q: $q) { count exact }\n  }\n": types.UsersDocument,
    "\n  mutation CreateUser($input: CreateUserInput!) {\n    createUser(input: $input) { id }\n  }\n": types.CreateUserDocument,
    "\n  query Webhook($id: ID!) {\n    webhook(id: $id) { id url description types enabled disabledReason failingSince previousSecretExpiresAt version createdAt }\n  }\n": types.WebhookDocument,
    "\n  query WebhookDeliveries($id: ID!, $status: String, $limit: Int, $cursor: String) {\n    webhookDeliveries(id: $id, status: $status, limit: $limit, cursor: $cursor) {\n      data { id eventType attempts status lastResponseStatus lastError durationMs lastAttemptAt nextAttemptAt createdAt }\n      nextCursor\n    }\n    webhookDeliveriesTotal(id: $id, status: $status) { count exact }\n  }\n": types.WebhookDeliveriesDocument,
    "\n  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {\n    updateWebhook(id: $id, input: $input) { id url description types enabled disabledReason failingSince version }\n  }\n": types.UpdateWebhookDocument,
    "\n  mutation RotateWebhookSecret($id: ID!, $overlapSeconds: Int) {\n    rotateWebhookSecret(id: $id, overlapSeconds: $overlapSeconds) { secret webhook { id previousSecretExpiresAt version } }\n  }\n": types.RotateWebhookSecretDocument,
    "\n  mutation TestWebhook($id: ID!) {\n    testWebhook(id: $id) { id }\n  }\n": types.TestWebhookDocument,
    "\n  mutation RetryWebhookDelivery($id: ID!, $deliveryId: ID!) {\n    retryWebhookDelivery(id: $id, deliveryId: $deliveryId) { id status nextAttemptAt }\n  }\n": types.RetryWebhookDeliveryDocument,
    "\n  mutation DeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n": types.DeleteWebhookDocument,
    "\n  query Webhooks($cursor: String) {\n    webhooks(limit: 50, cursor: $cursor) {\n      data { id url description types enabled disabledReason failingSince }\n      nextCursor\n    }\n  }\n": types.WebhooksDocument,
    "\n  mutation CreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) { secret webhook { id } }\n  }\n": types.CreateWebhookDocument,
    "\n  mutation Logout {\n    logout\n  }\n": types.LogoutDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditLog(\n    $action: String\n    $targetType: String\n    $targetId: ID\n    $byUserId: ID\n    $aboutUserId: ID\n    $from: DateTime\n    $to: DateTime\n    $limit: Int\n    $cursor: String\n    $withTotal: Boolean = false\n  ) {\n    auditLog(\n      action: $action\n      targetType: $targetType\n      targetId: $targetId\n      byUserId: $byUserId\n      aboutUserId: $aboutUserId\n      from: $from\n      to: $to\n      limit: $limit\n      cursor: $cursor\n    ) {\n      data {\n        id at action changes\n        by { kind userId userName apiKeyId apiKeyName via }\n        target { type id label }\n      }\n      nextCursor\n    }\n    auditLogTotal(action: $action, targetType: $targetType, targetId: $targetId, byUserId: $byUserId, aboutUserId: $aboutUserId, from: $from, to: $to)\n      @include(if: $withTotal) {\n      count\n      exact\n    }\n  }\n"): (typeof documents)["\n  query AuditLog(\n    $action: String\n    $targetType: String\n    $targetId: ID\n    $byUserId: ID\n    $aboutUserId: ID\n    $from: DateTime\n    $to: DateTime\n    $limit: Int\n    $cursor: String\n    $withTotal: Boolean = false\n  ) {\n    auditLog(\n      action: $action\n      targetType: $targetType\n      targetId: $targetId\n      byUserId: $byUserId\n      aboutUserId: $aboutUserId\n      from: $from\n      to: $to\n      limit: $limit\n      cursor: $cursor\n    ) {\n      data {\n        id at action changes\n        by { kind userId userName apiKeyId apiKeyName via }\n        target { type id label }\n      }\n      nextCursor\n    }\n    auditLogTotal(action: $action, targetType: $targetType, targetId: $targetId, byUserId: $byUserId, aboutUserId: $aboutUserId, from: $from, to: $to)\n      @include(if: $withTotal) {\n      count\n      exact\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UserApiKeys($userId: ID!, $cursor: String) {\n    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query UserApiKeys($userId: ID!, $cursor: String) {\n    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyApiKeys($cursor: String) {\n    myApiKeys(limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query MyApiKeys($cursor: String) {\n    myApiKeys(limit: 20, cursor: $cursor) {\n      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ProvisionApiKey($userId: ID!, $input: CreateApiKeyInput!) {\n    provisionApiKey(userId: $userId, input: $input) { id name prefix key }\n  }\n"): (typeof documents)["\n  mutation ProvisionApiKey($userId: ID!, $input: CreateApiKeyInput!) {\n    provisionApiKey(userId: $userId, input: $input) { id name prefix key }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n"): (typeof documents)["\n  mutation RevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateMyApiKey($input: CreateApiKeyInput!) {\n    createMyApiKey(input: $input) { id name prefix key }\n  }\n"): (typeof documents)["\n  mutation CreateMyApiKey($input: CreateApiKeyInput!) {\n    createMyApiKey(input: $input) { id name prefix key }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n"): (typeof documents)["\n  mutation RevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RotateUserApiKey($userId: ID!, $keyId: ID!, $input: RotateApiKeyInput) {\n    rotateUserApiKey(userId: $userId, keyId: $keyId, input: $input) { id name prefix key }\n  }\n"): (typeof documents)["\n  mutation RotateUserApiKey($userId: ID!, $keyId: ID!, $input: RotateApiKeyInput) {\n    rotateUserApiKey(userId: $userId, keyId: $keyId, input: $input) { id name prefix key }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RotateMyApiKey($keyId: ID!, $input: RotateApiKeyInput) {\n    rotateMyApiKey(keyId: $keyId, input: $input) { id name prefix key }\n  }\n"): (typeof documents)["\n  mutation RotateMyApiKey($keyId: ID!, $input: RotateApiKeyInput) {\n    rotateMyApiKey(keyId: $keyId, input: $input) { id name prefix key }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkRevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n"): (typeof documents)["\n  mutation BulkRevokeApiKey($userId: ID!, $keyId: ID!) {\n    revokeApiKey(userId: $userId, keyId: $keyId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkRevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n"): (typeof documents)["\n  mutation BulkRevokeMyApiKey($keyId: ID!) {\n    revokeMyApiKey(keyId: $keyId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkResolveTension($id: ID!) {\n    resolveTension(id: $id) { tension { id state version } }\n  }\n"): (typeof documents)["\n  mutation BulkResolveTension($id: ID!) {\n    resolveTension(id: $id) { tension { id state version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkDropTension($id: ID!) {\n    dropTension(id: $id) { tension { id state version } }\n  }\n"): (typeof documents)["\n  mutation BulkDropTension($id: ID!) {\n    dropTension(id: $id) { tension { id state version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkReassignTension($id: ID!, $actorId: ID!) {\n    reassignTension(id: $id, input: { actorId: $actorId }) { tension { id version } }\n  }\n"): (typeof documents)["\n  mutation BulkReassignTension($id: ID!, $actorId: ID!) {\n    reassignTension(id: $id, input: { actorId: $actorId }) { tension { id version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkSetTensionLead($id: ID!, $leadUserId: ID) {\n    setTensionLead(id: $id, input: { leadUserId: $leadUserId }) { tension { id version } }\n  }\n"): (typeof documents)["\n  mutation BulkSetTensionLead($id: ID!, $leadUserId: ID) {\n    setTensionLead(id: $id, input: { leadUserId: $leadUserId }) { tension { id version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BulkMatchingTensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: 100, cursor: $cursor) {\n      data { id name }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query BulkMatchingTensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: 100, cursor: $cursor) {\n      data { id name }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BulkDeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n"): (typeof documents)["\n  mutation BulkDeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GlobalSearch($q: String!, $tensions: Boolean!, $users: Boolean!, $actors: Boolean!, $roles: Boolean!) {\n    tensions(q: $q, limit: 5) @include(if: $tensions) { data { id name } }\n    users(q: $q, limit: 5) @include(if: $users) { data { id name email } }\n    actors(q: $q, limit: 5) @include(if: $actors) { data { id name } }\n    roles(q: $q, limit: 5) @include(if: $roles) { data { id name code } }\n    apiKeySearch(q: $q, limit: 5) @include(if: $users) { data { id name prefix revokedAt user { id name } } }\n  }\n"): (typeof documents)["\n  query GlobalSearch($q: String!, $tensions: Boolean!, $users: Boolean!, $actors: Boolean!, $roles: Boolean!) {\n    tensions(q: $q, limit: 5) @include(if: $tensions) { data { id name } }\n    users(q: $q, limit: 5) @include(if: $users) { data { id name email } }\n    actors(q: $q, limit: 5) @include(if: $actors) { data { id name } }\n    roles(q: $q, limit: 5) @include(if: $roles) { data { id name code } }\n    apiKeySearch(q: $q, limit: 5) @include(if: $users) { data { id name prefix revokedAt user { id name } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment HistoryEntryFields on HistoryEntry {\n    version type occurredAt summary summaryKey summaryParams\n    by { kind userId userName apiKeyName via }\n  }\n"): (typeof documents)["\n  fragment HistoryEntryFields on HistoryEntry {\n    version type occurredAt summary summaryKey summaryParams\n    by { kind userId userName apiKeyName via }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TensionHistory($id: ID!, $limit: Int, $cursor: String) {\n    tensionHistory(id: $id, limit: $limit, cursor: $cursor) {\n      data { ...HistoryEntryFields }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query TensionHistory($id: ID!, $limit: Int, $cursor: String) {\n    tensionHistory(id: $id, limit: $limit, cursor: $cursor) {\n      data { ...HistoryEntryFields }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PickActors($q: String, $type: ActorType, $cursor: String) {\n    actors(q: $q, type: $type, limit: 20, cursor: $cursor) {\n      data { id name type }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query PickActors($q: String, $type: ActorType, $cursor: String) {\n    actors(q: $q, type: $type, limit: 20, cursor: $cursor) {\n      data { id name type }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PickActor($id: ID!) {\n    actor(id: $id) { id name type }\n  }\n"): (typeof documents)["\n  query PickActor($id: ID!) {\n    actor(id: $id) { id name type }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PickUsers($q: String, $status: UserStatus, $cursor: String) {\n    users(q: $q, status: $status, limit: 20, cursor: $cursor) {\n      data { id name email type status }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query PickUsers($q: String, $status: UserStatus, $cursor: String) {\n    users(q: $q, status: $status, limit: 20, cursor: $cursor) {\n      data { id name email type status }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PickUser($id: ID!) {\n    user(id: $id) { id name email type status }\n  }\n"): (typeof documents)["\n  query PickUser($id: ID!) {\n    user(id: $id) { id name email type status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RoleOptions {\n    roles(limit: 100) {\n      data { id code name system inherits effectivePermissions }\n    }\n  }\n"): (typeof documents)["\n  query RoleOptions {\n    roles(limit: 100) {\n      data { id code name system inherits effectivePermissions }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyMfa {\n    myMfa { enrolled pending recoveryCodesLeft required }\n  }\n"): (typeof documents)["\n  query MyMfa {\n    myMfa { enrolled pending recoveryCodesLeft required }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StartMfaEnrolment {\n    startMfaEnrolment { secret otpauthUri qrCodeSvg }\n  }\n"): (typeof documents)["\n  mutation StartMfaEnrolment {\n    startMfaEnrolment { secret otpauthUri qrCodeSvg }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConfirmMfaEnrolment($code: String!) {\n    confirmMfaEnrolment(code: $code) { recoveryCodes }\n  }\n"): (typeof documents)["\n  mutation ConfirmMfaEnrolment($code: String!) {\n    confirmMfaEnrolment(code: $code) { recoveryCodes }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisableMyMfa($code: String!) {\n    disableMyMfa(code: $code)\n  }\n"): (typeof documents)["\n  mutation DisableMyMfa($code: String!) {\n    disableMyMfa(code: $code)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {\n    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {\n    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {\n    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {\n    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {\n    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {\n    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {\n    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {\n    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {\n    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {\n    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TensionAsOf($id: ID!, $version: Int!, $before: Int!, $first: Boolean!) {\n    tension(id: $id, asOfVersion: $version) {\n      id name state score currentContext potentialFuture\n      actor { id name type }\n      lead { id name }\n      asOf { version occurredAt }\n    }\n    tensionChanges(id: $id, from: $before, to: $version) @skip(if: $first) {\n      from to changes { field from to }\n    }\n  }\n"): (typeof documents)["\n  query TensionAsOf($id: ID!, $version: Int!, $before: Int!, $first: Boolean!) {\n    tension(id: $id, asOfVersion: $version) {\n      id name state score currentContext potentialFuture\n      actor { id name type }\n      lead { id name }\n      asOf { version occurredAt }\n    }\n    tensionChanges(id: $id, from: $before, to: $version) @skip(if: $first) {\n      from to changes { field from to }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TensionChanges($id: ID!, $from: Int!, $to: Int!) {\n    tensionChanges(id: $id, from: $from, to: $to) {\n      from to changes { field from to }\n    }\n  }\n"): (typeof documents)["\n  query TensionChanges($id: ID!, $from: Int!, $to: Int!) {\n    tensionChanges(id: $id, from: $from, to: $to) {\n      from to changes { field from to }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PermissionCatalogue {\n    permissions\n  }\n"): (typeof documents)["\n  query PermissionCatalogue {\n    permissions\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      user { id name email type }\n      roles { id code name }\n      permissions\n      authenticatedBy\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      user { id name email type }\n      roles { id code name }\n      permissions\n      authenticatedBy\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input)\n  }\n"): (typeof documents)["\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditVocabulary {\n    auditVocabulary { actions targetTypes }\n  }\n"): (typeof documents)["\n  query AuditVocabulary {\n    auditVocabulary { actions targetTypes }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Actors($type: ActorType, $q: String, $limit: Int, $cursor: String) {\n    actors(type: $type, q: $q, limit: $limit, cursor: $cursor) {\n      data { id name type version tensionCount createdAt updatedAt }\n      nextCursor\n    }\n    actorsTotal(type: $type, q: $q) { count exact }\n  }\n"): (typeof documents)["\n  query Actors($type: ActorType, $q: String, $limit: Int, $cursor: String) {\n    actors(type: $type, q: $q, limit: $limit, cursor: $cursor) {\n      data { id name type version tensionCount createdAt updatedAt }\n      nextCursor\n    }\n    actorsTotal(type: $type, q: $q) { count exact }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateActor($input: CreateActorInput!) {\n    createActor(input: $input) { id name type }\n  }\n"): (typeof documents)["\n  mutation CreateActor($input: CreateActorInput!) {\n    createActor(input: $input) { id name type }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateActor($id: ID!, $input: UpdateActorInput!) {\n    updateActor(id: $id, input: $input) { id name type version }\n  }\n"): (typeof documents)["\n  mutation UpdateActor($id: ID!, $input: UpdateActorInput!) {\n    updateActor(id: $id, input: $input) { id name type version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ActorVersion($id: ID!) {\n    actor(id: $id) { id name type version }\n  }\n"): (typeof documents)["\n  query ActorVersion($id: ID!) {\n    actor(id: $id) { id name type version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteActor($id: ID!) {\n    deleteActor(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteActor($id: ID!) {\n    deleteActor(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardTensions($weeks: Int) {\n    dashboardTensions(weeks: $weeks) {\n      from\n      to\n      byState { state count }\n      aliveByScore { score count }\n      weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }\n      oldestAlive { id name score actorName createdAt }\n      actorLoad { actorId actorName alive total }\n    }\n  }\n"): (typeof documents)["\n  query DashboardTensions($weeks: Int) {\n    dashboardTensions(weeks: $weeks) {\n      from\n      to\n      byState { state count }\n      aliveByScore { score count }\n      weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }\n      oldestAlive { id name score actorName createdAt }\n      actorLoad { actorId actorName alive total }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardKeyUsage($days: Int) {\n    dashboardKeyUsage(days: $days) { from to days keys { keyId keyName prefix userId userName total requests } }\n  }\n"): (typeof documents)["\n  query DashboardKeyUsage($days: Int) {\n    dashboardKeyUsage(days: $days) { from to days keys { keyId keyName prefix userId userName total requests } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardSignInFailures($days: Int) {\n    dashboardSignInFailures(days: $days) { from to days { day failed throttled } }\n  }\n"): (typeof documents)["\n  query DashboardSignInFailures($days: Int) {\n    dashboardSignInFailures(days: $days) { from to days { day failed throttled } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardFeedHealth {\n    dashboardFeedHealth { headPosition relays { name behind published leaseActive updatedAt } }\n  }\n"): (typeof documents)["\n  query DashboardFeedHealth {\n    dashboardFeedHealth { headPosition relays { name behind published leaseActive updatedAt } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardWebhookHealth {\n    dashboardWebhookHealth { endpoints enabled failing disabled retrying }\n  }\n"): (typeof documents)["\n  query DashboardWebhookHealth {\n    dashboardWebhookHealth { endpoints enabled failing disabled retrying }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      user { id name }\n    }\n  }\n"): (typeof documents)["\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      user { id name }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LoginMfa($input: LoginMfaInput!) {\n    loginMfa(input: $input) {\n      user { id name }\n    }\n  }\n"): (typeof documents)["\n  mutation LoginMfa($input: LoginMfaInput!) {\n    loginMfa(input: $input) {\n      user { id name }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Role($id: ID!) {\n    role(id: $id) { id code name permissions inherits system effectivePermissions version }\n  }\n"): (typeof documents)["\n  query Role($id: ID!) {\n    role(id: $id) { id code name permissions inherits system effectivePermissions version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateRole($input: CreateRoleInput!) {\n    createRole(input: $input) { id }\n  }\n"): (typeof documents)["\n  mutation CreateRole($input: CreateRoleInput!) {\n    createRole(input: $input) { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateRole($id: ID!, $input: UpdateRoleInput!) {\n    updateRole(id: $id, input: $input) { id code name permissions inherits system effectivePermissions version }\n  }\n"): (typeof documents)["\n  mutation UpdateRole($id: ID!, $input: UpdateRoleInput!) {\n    updateRole(id: $id, input: $input) { id code name permissions inherits system effectivePermissions version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteRole($id: ID!) {\n    deleteRole(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteRole($id: ID!) {\n    deleteRole(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Roles($limit: Int, $cursor: String) {\n    roles(limit: $limit, cursor: $cursor) {\n      data { id code name permissions inherits system effectivePermissions }\n      nextCursor\n    }\n    rolesTotal { count exact }\n  }\n"): (typeof documents)["\n  query Roles($limit: Int, $cursor: String) {\n    roles(limit: $limit, cursor: $cursor) {\n      data { id code name permissions inherits system effectivePermissions }\n      nextCursor\n    }\n    rolesTotal { count exact }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SenseTension($input: SenseTensionInput!) {\n    senseTension(input: $input) {\n      tension { id }\n    }\n  }\n"): (typeof documents)["\n  mutation SenseTension($input: SenseTensionInput!) {\n    senseTension(input: $input) {\n      tension { id }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment TensionFields on Tension {\n    id name currentContext potentialFuture score state version createdAt updatedAt allowedCommands\n    actorId actor { id name type }\n    leadUserId lead { id name type status }\n  }\n"): (typeof documents)["\n  fragment TensionFields on Tension {\n    id name currentContext potentialFuture score state version createdAt updatedAt allowedCommands\n    actorId actor { id name type }\n    leadUserId lead { id name type status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Tension($id: ID!) {\n    tension(id: $id) { ...TensionFields }\n  }\n"): (typeof documents)["\n  query Tension($id: ID!) {\n    tension(id: $id) { ...TensionFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResolveTension($id: ID!, $expectedVersion: Int) {\n    resolveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation ResolveTension($id: ID!, $expectedVersion: Int) {\n    resolveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DropTension($id: ID!, $expectedVersion: Int) {\n    dropTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation DropTension($id: ID!, $expectedVersion: Int) {\n    dropTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReopenTension($id: ID!, $expectedVersion: Int) {\n    reopenTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation ReopenTension($id: ID!, $expectedVersion: Int) {\n    reopenTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviveTension($id: ID!, $expectedVersion: Int) {\n    reviveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"): (typeof documents)["\n  mutation ReviveTension($id: ID!, $expectedVersion: Int) {\n    reviveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DiscardTension($id: ID!, $expectedVersion: Int) {\n    discardTension(id: $id, input: { expectedVersion: $expectedVersion }) { event { version } }\n  }\n"): (typeof documents)["\n  mutation DiscardTension($id: ID!, $expectedVersion: Int) {\n    discardTension(id: $id, input: { expectedVersion: $expectedVersion }) { event { version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Tensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $limit: Int, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: $limit, cursor: $cursor) {\n      data {\n        id name score state version updatedAt\n        actor { id name type }\n        lead { id name type status }\n      }\n      nextCursor\n    }\n    tensionsTotal(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore) {\n      count\n      exact\n    }\n  }\n"): (typeof documents)["\n  query Tensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $limit: Int, $cursor: String) {\n    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: $limit, cursor: $cursor) {\n      data {\n        id name score state version updatedAt\n        actor { id name type }\n        lead { id name type status }\n      }\n      nextCursor\n    }\n    tensionsTotal(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore) {\n      count\n      exact\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query User($id: ID!) {\n    user(id: $id) {\n      id type email name status linkedActorId createdAt updatedAt version\n      linkedActor { id name }\n      roles { id code name effectivePermissions }\n    }\n  }\n"): (typeof documents)["\n  query User($id: ID!) {\n    user(id: $id) {\n      id type email name status linkedActorId createdAt updatedAt version\n      linkedActor { id name }\n      roles { id code name effectivePermissions }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) { id name email linkedActorId version }\n  }\n"): (typeof documents)["\n  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) { id name email linkedActorId version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!, $expectedVersion: Int) {\n    setUserRoles(id: $id, roleIds: $roleIds, expectedVersion: $expectedVersion) { id version roles { id } }\n  }\n"): (typeof documents)["\n  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!, $expectedVersion: Int) {\n    setUserRoles(id: $id, roleIds: $roleIds, expectedVersion: $expectedVersion) { id version roles { id } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n"): (typeof documents)["\n  mutation DeactivateUser($id: ID!) {\n    deactivateUser(id: $id) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReactivateUser($id: ID!) {\n    reactivateUser(id: $id) { id status version updatedAt }\n  }\n"): (typeof documents)["\n  mutation ReactivateUser($id: ID!) {\n    reactivateUser(id: $id) { id status version updatedAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResetUserPassword($id: ID!, $password: String!) {\n    resetUserPassword(id: $id, password: $password)\n  }\n"): (typeof documents)["\n  mutation ResetUserPassword($id: ID!, $password: String!) {\n    resetUserPassword(id: $id, password: $password)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResetUserMfa($id: ID!) {\n    resetUserMfa(id: $id)\n  }\n"): (typeof documents)["\n  mutation ResetUserMfa($id: ID!) {\n    resetUserMfa(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Users($type: UserType, $status: UserStatus, $q: String, $limit: Int, $cursor: String) {\n    users(type: $type, status: $status, q: $q, limit: $limit, cursor: $cursor) {\n      data { id type email name status roles { id name } linkedActor { id name } }\n      nextCursor\n    }\n    usersTotal(type: $type, status: $status, q: $q) { count exact }\n  }\n"): (typeof documents)["\n  query Users($type: UserType, $status: UserStatus, $q: String, $limit: Int, $cursor: String) {\n    users(type: $type, status: $status, q: $q, limit: $limit, cursor: $cursor) {\n      data { id type email name status roles { id name } linkedActor { id name } }\n      nextCursor\n    }\n    usersTotal(type: $type, status: $status, q: $q) { count exact }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateUser($input: CreateUserInput!) {\n    createUser(input: $input) { id }\n  }\n"): (typeof documents)["\n  mutation CreateUser($input: CreateUserInput!) {\n    createUser(input: $input) { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Webhook($id: ID!) {\n    webhook(id: $id) { id url description types enabled disabledReason failingSince previousSecretExpiresAt version createdAt }\n  }\n"): (typeof documents)["\n  query Webhook($id: ID!) {\n    webhook(id: $id) { id url description types enabled disabledReason failingSince previousSecretExpiresAt version createdAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookDeliveries($id: ID!, $status: String, $limit: Int, $cursor: String) {\n    webhookDeliveries(id: $id, status: $status, limit: $limit, cursor: $cursor) {\n      data { id eventType attempts status lastResponseStatus lastError durationMs lastAttemptAt nextAttemptAt createdAt }\n      nextCursor\n    }\n    webhookDeliveriesTotal(id: $id, status: $status) { count exact }\n  }\n"): (typeof documents)["\n  query WebhookDeliveries($id: ID!, $status: String, $limit: Int, $cursor: String) {\n    webhookDeliveries(id: $id, status: $status, limit: $limit, cursor: $cursor) {\n      data { id eventType attempts status lastResponseStatus lastError durationMs lastAttemptAt nextAttemptAt createdAt }\n      nextCursor\n    }\n    webhookDeliveriesTotal(id: $id, status: $status) { count exact }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {\n    updateWebhook(id: $id, input: $input) { id url description types enabled disabledReason failingSince version }\n  }\n"): (typeof documents)["\n  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {\n    updateWebhook(id: $id, input: $input) { id url description types enabled disabledReason failingSince version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RotateWebhookSecret($id: ID!, $overlapSeconds: Int) {\n    rotateWebhookSecret(id: $id, overlapSeconds: $overlapSeconds) { secret webhook { id previousSecretExpiresAt version } }\n  }\n"): (typeof documents)["\n  mutation RotateWebhookSecret($id: ID!, $overlapSeconds: Int) {\n    rotateWebhookSecret(id: $id, overlapSeconds: $overlapSeconds) { secret webhook { id previousSecretExpiresAt version } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TestWebhook($id: ID!) {\n    testWebhook(id: $id) { id }\n  }\n"): (typeof documents)["\n  mutation TestWebhook($id: ID!) {\n    testWebhook(id: $id) { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetryWebhookDelivery($id: ID!, $deliveryId: ID!) {\n    retryWebhookDelivery(id: $id, deliveryId: $deliveryId) { id status nextAttemptAt }\n  }\n"): (typeof documents)["\n  mutation RetryWebhookDelivery($id: ID!, $deliveryId: ID!) {\n    retryWebhookDelivery(id: $id, deliveryId: $deliveryId) { id status nextAttemptAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Webhooks($cursor: String) {\n    webhooks(limit: 50, cursor: $cursor) {\n      data { id url description types enabled disabledReason failingSince }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query Webhooks($cursor: String) {\n    webhooks(limit: 50, cursor: $cursor) {\n      data { id url description types enabled disabledReason failingSince }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) { secret webhook { id } }\n  }\n"): (typeof documents)["\n  mutation CreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) { secret webhook { id } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Logout {\n    logout\n  }\n"): (typeof documents)["\n  mutation Logout {\n    logout\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;