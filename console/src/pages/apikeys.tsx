// API keys: until the API manages keys, this page shows the key in use and how to make more.
import { useSession } from "../session";
import { PageHeader } from "../ui";

export function ApiKeysPage() {
  const { viewer } = useSession();
  return (
    <>
      <PageHeader title="API keys" />
      <dl class="facts">
        <dt>This key</dt>
        <dd>
          <code>{viewer.keyId}</code> {viewer.keyLabel ?? ""}
        </dd>
        <dt>Role</dt>
        <dd>{viewer.role}</dd>
      </dl>
      <p>
        Create keys with <code>quiver apikey create</code>.
      </p>
    </>
  );
}
