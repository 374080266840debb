import{A as nt,s as bt,c as yn,e as Bt,f as vn,a as Sn,K as In,g as kn}from"./keystore-DvX34wAy.js";var Ke,R,Ut,le,_t,Kt,Ot,je,Pe,Se,Vt,rt,Qe,Ze,Ft,xe={},Me=[],wn=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,Oe=Array.isArray;function ne(t,n){for(var r in n)t[r]=n[r];return t}function st(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function Cn(t,n,r){var s,o,l,a={};for(l in n)l=="key"?s=n[l]:l=="ref"?o=n[l]:a[l]=n[l];if(arguments.length>2&&(a.children=arguments.length>3?Ke.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(l in t.defaultProps)a[l]===void 0&&(a[l]=t.defaultProps[l]);return De(t,a,s,o,null)}function De(t,n,r,s,o){var l={type:t,props:n,key:r,ref:s,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:o??++Ut,__i:-1,__u:0};return o==null&&R.vnode!=null&&R.vnode(l),l}function v(t){return t.children}function Re(t,n){this.props=t,this.context=n}function de(t,n){if(n==null)return t.__?de(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?de(t):null}function An(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,s=[],o=[],l=ne({},n);l.__v=n.__v+1,R.vnode&&R.vnode(l),lt(t.__P,l,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,s,r??de(n),!!(32&n.__u),o),l.__v=n.__v,l.__.__k[l.__i]=l,zt(s,l,o),n.__e=n.__=null,l.__e!=r&&Ht(l)}}function Ht(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),Ht(t)}function Ye(t){(!t.__d&&(t.__d=!0)&&le.push(t)&&!Le.__r++||_t!=R.debounceRendering)&&((_t=R.debounceRendering)||Kt)(Le)}function Le(){try{for(var t,n=1;le.length;)le.length>n&&le.sort(Ot),t=le.shift(),n=le.length,An(t)}finally{le.length=Le.__r=0}}function jt(t,n,r,s,o,l,a,c,d,i,p){var m,u,f,b,S,_,y=s&&s.__k||Me,g=n.length;for(d=$n(r,n,y,d,g),m=0;m<g;m++)(f=r.__k[m])!=null&&(u=f.__i!=-1&&y[f.__i]||xe,f.__i=m,_=lt(t,f,u,o,l,a,c,d,i,p),b=f.__e,f.ref&&u.ref!=f.ref&&(u.ref&&ot(u.ref,null,f),p.push(f.ref,f.__c||b,f)),S==null&&b!=null&&(S=b),4&f.__u?(d=Gt(f,d,t),u.__e&&(u.__e=null)):typeof f.type=="function"&&_!==void 0?d=_:b&&(d=b.nextSibling),f.__u&=-7);return r.__e=S,d}function $n(t,n,r,s,o){var l,a,c,d,i,p=r.length,m=p,u=0;for(t.__k=new Array(o),l=0;l<o;l++)(a=n[l])!=null&&typeof a!="boolean"&&typeof a!="function"?(typeof a=="string"||typeof a=="number"||typeof a=="bigint"||a.constructor==String?a=t.__k[l]=De(null,a,null,null,null):Oe(a)?a=t.__k[l]=De(v,{children:a},null,null,null):a.constructor===void 0&&a.__b>0?a=t.__k[l]=De(a.type,a.props,a.key,a.ref?a.ref:null,a.__v):t.__k[l]=a,d=l+u,a.__=t,a.__b=t.__b+1,c=null,(i=a.__i=Tn(a,r,d,m))!=-1&&(m--,(c=r[i])&&(c.__u|=2)),c==null||c.__v==null?(i==-1&&(o>p?u--:o<p&&u++),typeof a.type!="function"&&(a.__u|=4)):i!=d&&(i==d-1?u--:i==d+1?u++:(i>d?u--:u++,a.__u|=4))):t.__k[l]=null;if(m)for(l=0;l<p;l++)(c=r[l])!=null&&(2&c.__u)==0&&(c.__e==s&&(s=de(c)),Qt(c,c));return s}function Gt(t,n,r){var s,o;if(typeof t.type=="function"){for(s=t.__k,o=0;s&&o<s.length;o++)s[o]&&(s[o].__=t,n=Gt(s[o],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=de(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function Tn(t,n,r,s){var o,l,a,c=t.key,d=t.type,i=n[r],p=i!=null&&(2&i.__u)==0;if(i===null&&c==null||p&&c==i.key&&d==i.type)return r;if(s>(p?1:0)){for(o=r-1,l=r+1;o>=0||l<n.length;)if((i=n[a=o>=0?o--:l++])!=null&&(2&i.__u)==0&&c==i.key&&d==i.type)return a}return-1}function yt(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||wn.test(n)?r:r+"px"}function Ee(t,n,r,s,o){var l,a;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof s=="string"&&(t.style.cssText=s=""),s)for(n in s)r&&n in r||yt(t.style,n,"");if(r)for(n in r)s&&r[n]==s[n]||yt(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")l=n!=(n=n.replace(Vt,"$1")),a=n.toLowerCase(),n=a in t||n=="onFocusOut"||n=="onFocusIn"?a.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+l]=r,r?s?r[Se]=s[Se]:(r[Se]=rt,t.addEventListener(n,l?Ze:Qe,l)):t.removeEventListener(n,l?Ze:Qe,l);else{if(o=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function vt(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[Pe]==null)n[Pe]=rt++;else if(n[Pe]<r[Se])return;return r(R.event?R.event(n):n)}}}function lt(t,n,r,s,o,l,a,c,d,i){var p,m,u,f,b,S,_,y,g,I,L,D,G,A,J,E,P=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(d=!!(32&r.__u),l=[c=n.__e=r.__e]),(p=R.__b)&&p(n);e:if(typeof P=="function"){m=a.length;try{if(g=n.props,I=P.prototype&&P.prototype.render,L=(p=P.contextType)&&s[p.__c],D=p?L?L.props.value:p.__:s,r.__c?y=(u=n.__c=r.__c).__=u.__E:(I?n.__c=u=new P(g,D):(n.__c=u=new Re(g,D),u.constructor=P,u.render=Pn),L&&L.sub(u),u.state||(u.state={}),u.__n=s,f=u.__d=!0,u.__h=[],u._sb=[]),I&&u.__s==null&&(u.__s=u.state),I&&P.getDerivedStateFromProps!=null&&(u.__s==u.state&&(u.__s=ne({},u.__s)),ne(u.__s,P.getDerivedStateFromProps(g,u.__s))),b=u.props,S=u.state,u.__v=n,f)I&&P.getDerivedStateFromProps==null&&u.componentWillMount!=null&&u.componentWillMount(),I&&u.componentDidMount!=null&&u.__h.push(u.componentDidMount);else{if(I&&P.getDerivedStateFromProps==null&&g!==b&&u.componentWillReceiveProps!=null&&u.componentWillReceiveProps(g,D),n.__v==r.__v||!u.__e&&u.shouldComponentUpdate!=null&&u.shouldComponentUpdate(g,u.__s,D)===!1){n.__v!=r.__v&&(u.props=g,u.state=u.__s,u.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(O){O&&(O.__=n)}),Me.push.apply(u.__h,u._sb),u._sb=[],u.__h.length&&a.push(u),c=de(r);break e}u.componentWillUpdate!=null&&u.componentWillUpdate(g,u.__s,D),I&&u.componentDidUpdate!=null&&u.__h.push(function(){u.componentDidUpdate(b,S,_)})}if(u.context=D,u.props=g,u.__P=t,u.__e=!1,G=R.__r,A=0,I)u.state=u.__s,u.__d=!1,G&&G(n),p=u.render(u.props,u.state,u.context),Me.push.apply(u.__h,u._sb),u._sb=[];else do u.__d=!1,G&&G(n),p=u.render(u.props,u.state,u.context),u.state=u.__s;while(u.__d&&++A<25);u.state=u.__s,u.getChildContext!=null&&(s=ne(ne({},s),u.getChildContext())),I&&!f&&u.getSnapshotBeforeUpdate!=null&&(_=u.getSnapshotBeforeUpdate(b,S)),J=p!=null&&p.type===v&&p.key==null?Jt(p.props.children):p,c=jt(t,Oe(J)?J:[J],n,r,s,o,l,a,c,d,i),u.base=n.__e,n.__u&=-161,u.__h.length&&a.push(u),y&&(u.__E=u.__=null)}catch(O){if(a.length=m,n.__v=null,d||l!=null){if(O.then){for(n.__u|=d?160:128;c&&c.nodeType==8&&c.nextSibling;)c=c.nextSibling;l!=null&&(l[l.indexOf(c)]=null),n.__e=c}else if(l!=null)for(E=l.length;E--;)st(l[E])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),O.then||Wt(n),R.__e(O,n,r)}}else l==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):c=n.__e=En(r.__e,n,r,s,o,l,a,d,i);return(p=R.diffed)&&p(n),128&n.__u?void 0:c}function Wt(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(Wt))}function zt(t,n,r){for(var s=0;s<r.length;s++)ot(r[s],r[++s],r[++s]);R.__c&&R.__c(n,t),t.some(function(o){try{t=o.__h,o.__h=[],t.some(function(l){l.call(o)})}catch(l){R.__e(l,o.__v)}})}function Jt(t){return typeof t!="object"||t==null||t.__b>0?t:Oe(t)?t.map(Jt):t.constructor!==void 0?null:ne({},t)}function En(t,n,r,s,o,l,a,c,d){var i,p,m,u,f,b,S,_=r.props||xe,y=n.props,g=n.type;if(g=="svg"?o="http://www.w3.org/2000/svg":g=="math"?o="http://www.w3.org/1998/Math/MathML":o||(o="http://www.w3.org/1999/xhtml"),l!=null){for(i=0;i<l.length;i++)if((f=l[i])&&"setAttribute"in f==!!g&&(g?f.localName==g:f.nodeType==3)){t=f,l[i]=null;break}}if(t==null){if(g==null)return document.createTextNode(y);t=document.createElementNS(o,g,y.is&&y),c&&(R.__m&&R.__m(n,l),c=!1),l=null}if(g==null)_===y||c&&t.data==y||(t.data=y);else{if(l=g=="textarea"&&y.defaultValue!=null?null:l&&Ke.call(t.childNodes),!c&&l!=null)for(_={},i=0;i<t.attributes.length;i++)_[(f=t.attributes[i]).name]=f.value;for(i in _)f=_[i],i=="dangerouslySetInnerHTML"?m=f:i=="children"||i in y||i=="value"&&"defaultValue"in y||i=="checked"&&"defaultChecked"in y||Ee(t,i,null,f,o);for(i in y)f=y[i],i=="children"?u=f:i=="dangerouslySetInnerHTML"?p=f:i=="value"?b=f:i=="checked"?S=f:c&&typeof f!="function"||_[i]===f||Ee(t,i,f,_[i],o);if(p)c||m&&(p.__html==m.__html||p.__html==t.innerHTML)||(t.innerHTML=p.__html),n.__k=[];else if(m&&(t.innerHTML=""),jt(n.type=="template"?t.content:t,Oe(u)?u:[u],n,r,s,g=="foreignObject"?"http://www.w3.org/1999/xhtml":o,l,a,l?l[0]:r.__k&&de(r,0),c,d),l!=null)for(i=l.length;i--;)st(l[i]);c&&g!="textarea"||(i="value",g=="progress"&&b==null?t.removeAttribute("value"):b!=null&&(b!==t[i]||g=="progress"&&!b||g=="option"&&b!=_[i])&&Ee(t,i,b,_[i],o),i="checked",S!=null&&S!=t[i]&&Ee(t,i,S,_[i],o))}return t}function ot(t,n,r){try{if(typeof t=="function"){var s=typeof t.__u=="function";s&&t.__u(),s&&n==null||(t.__u=t(n))}else t.current=n}catch(o){R.__e(o,r)}}function Qt(t,n,r){var s,o;if(R.unmount&&R.unmount(t),(s=t.ref)&&(s.current&&s.current!=t.__e||ot(s,null,n)),(s=t.__c)!=null){if(s.componentWillUnmount)try{s.componentWillUnmount()}catch(l){R.__e(l,n)}s.base=s.__P=s.__n=null}if(s=t.__k)for(o=0;o<s.length;o++)s[o]&&Qt(s[o],n,r||typeof t.type!="function");r||st(t.__e),t.__c=t.__=t.__e=void 0}function Pn(t,n,r){return this.constructor(t,r)}function Dn(t,n,r){var s,o,l,a;n==document&&(n=document.documentElement),R.__&&R.__(t,n),o=(s=!1)?null:n.__k,l=[],a=[],lt(n,t=n.__k=Cn(v,null,[t]),o||xe,xe,n.namespaceURI,o?null:n.firstChild?Ke.call(n.childNodes):null,l,o?o.__e:n.firstChild,s,a),zt(l,t,a),t.props.children=null}function Rn(t){function n(r){var s,o;return this.getChildContext||(s=new Set,(o={})[n.__c]=this,this.getChildContext=function(){return o},this.componentWillUnmount=function(){s=null},this.shouldComponentUpdate=function(l){this.props.value!=l.value&&s.forEach(function(a){a.__e=!0,Ye(a)})},this.sub=function(l){s.add(l);var a=l.componentWillUnmount;l.componentWillUnmount=function(){s&&s.delete(l),a&&a.call(l)}}),r.children}return n.__c="__cC"+Ft++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,s){return r.children(s)}).contextType=n,n}Ke=Me.slice,R={__e:function(t,n,r,s){for(var o,l,a;n=n.__;)if((o=n.__c)&&!o.__)try{if((l=o.constructor)&&l.getDerivedStateFromError!=null&&(o.setState(l.getDerivedStateFromError(t)),a=o.__d),o.componentDidCatch!=null&&(o.componentDidCatch(t,s||{}),a=o.__d),a)return o.__E=o}catch(c){t=c}throw t}},Ut=0,Re.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=ne({},this.state),typeof t=="function"&&(t=t(ne({},r),this.props)),t&&ne(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),Ye(this))},Re.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),Ye(this))},Re.prototype.render=v,le=[],Kt=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,Ot=function(t,n){return t.__v.__b-n.__v.__b},Le.__r=0,je=Math.random().toString(8),Pe="__d"+je,Se="__a"+je,Vt=/(PointerCapture)$|Capture$/i,rt=0,Qe=vt(!1),Ze=vt(!0),Ft=0;var Nn=0;function e(t,n,r,s,o,l){n||(n={});var a,c,d=n;if("ref"in d)for(c in d={},n)c=="ref"?a=n[c]:d[c]=n[c];var i={type:t,props:d,key:r,ref:a,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Nn,__i:-1,__u:0,__source:o,__self:l};if(typeof t=="function"&&(a=t.defaultProps))for(c in a)d[c]===void 0&&(d[c]=a[c]);return R.vnode&&R.vnode(i),i}var ue,x,Ge,St,Ie=0,Zt=[],U=R,It=U.__b,kt=U.__r,wt=U.diffed,Ct=U.__c,At=U.unmount,$t=U.__;function ke(t,n){U.__h&&U.__h(x,t,Ie||n),Ie=0;var r=x.__H||(x.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function h(t){return Ie=1,xn(Xt,t)}function xn(t,n,r){var s=ke(ue++,2);if(s.t=t,!s.__c&&(s.__=[Xt(void 0,n),function(c){var d=s.__N?s.__N[0]:s.__[0],i=s.t(d,c);d!==i&&(s.__N=[i,s.__[1]],s.__c.setState({}))}],s.__c=x,!x.__f)){var o=function(c,d,i){if(!s.__c.__H)return!0;var p=!1,m=s.__c.props!==c;if(s.__c.__H.__.some(function(f){if(f.__N){p=!0;var b=f.__[0];f.__=f.__N,f.__N=void 0,b!==f.__[0]&&(m=!0)}}),l){var u=l.call(this,c,d,i);return p?u||m:u}return!p||m};x.__f=!0;var l=x.shouldComponentUpdate,a=x.componentWillUpdate;x.componentWillUpdate=function(c,d,i){if(this.__e){var p=l;l=void 0,o(c,d,i),l=p}a&&a.call(this,c,d,i)},x.shouldComponentUpdate=o}return s.__N||s.__}function V(t,n){var r=ke(ue++,3);!U.__s&&Yt(r.__H,n)&&(r.__=t,r.u=n,x.__H.__h.push(r))}function Ve(t){return Ie=5,fe(function(){return{current:t}},[])}function fe(t,n){var r=ke(ue++,7);return Yt(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function qe(t,n){return Ie=8,fe(function(){return t},n)}function Mn(t){var n=x.context[t.__c],r=ke(ue++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(x)),n.props.value):t.__}function Ln(){var t=ke(ue++,11);if(!t.__){for(var n=x.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function qn(){for(var t;t=Zt.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(Ne),n.__h.some(Xe),n.__h=[]}catch(r){n.__h=[],U.__e(r,t.__v)}}}U.__b=function(t){x=null,It&&It(t)},U.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),$t&&$t(t,n)},U.__r=function(t){kt&&kt(t),ue=0;var n=(x=t.__c).__H;n&&(Ge===x?(n.__h=[],x.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(Ne),n.__h.some(Xe),n.__h=[],ue=0)),Ge=x},U.diffed=function(t){wt&&wt(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(Zt.push(n)!==1&&St===U.requestAnimationFrame||((St=U.requestAnimationFrame)||Bn)(qn)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),Ge=x=null},U.__c=function(t,n){n.some(function(r){try{r.__h.some(Ne),r.__h=r.__h.filter(function(s){return!s.__||Xe(s)})}catch(s){n.some(function(o){o.__h&&(o.__h=[])}),n=[],U.__e(s,r.__v)}}),Ct&&Ct(t,n)},U.unmount=function(t){At&&At(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(s){try{Ne(s)}catch(o){n=o}}),r.__H=void 0,n&&U.__e(n,r.__v))};var Tt=typeof requestAnimationFrame=="function";function Bn(t){var n,r=function(){clearTimeout(s),Tt&&cancelAnimationFrame(n),setTimeout(t)},s=setTimeout(r,35);Tt&&(n=requestAnimationFrame(r))}function Ne(t){var n=x,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),x=n}function Xe(t){var n=x;t.__c=t.__(),x=n}function Yt(t,n){return!t||t.length!==n.length||n.some(function(r,s){return r!==t[s]})}function Xt(t,n){return typeof n=="function"?n(t):n}class k extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new k(`
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}
    `,{fragmentName:"RunRow"});new k(`
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}
    `,{fragmentName:"CallRow"});new k(`
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}
    `,{fragmentName:"ToolRow"});const Un=new k(`
    query Agents($first: Int!, $after: String) {
  agents(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        model
        status
        updatedAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),Kn=new k(`
    query AgentDetail($id: ID!) {
  agent(id: $id) {
    id
    name
    model
    systemPrompt
    maxSteps
    outputFormat
    status
    boundSkillReferences
    space {
      id
      name
    }
    mountedKnowledgeBases {
      id
      name
    }
    activatedTools {
      id
      name
    }
    runs(first: 50) {
      totalCount
      edges {
        node {
          ...RunRow
        }
      }
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),On=new k(`
    query AgentChoices($spaceId: ID!) {
  space(id: $spaceId) {
    id
    visibleTools(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
    skills(first: 100) {
      edges {
        node {
          id
          name
          label
          version
        }
      }
    }
    knowledgeBases(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
  }
}
    `),Vn=new k(`
    mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),Fn=new k(`
    mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),Hn=new k(`
    query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    tokenEstimate
    budgetChars
    charCount
    warnings
    sections {
      kind
      source
      text
      truncated
      reason
    }
  }
}
    `),jn=new k(`
    mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run {
      ...RunRow
    }
    userErrors {
      field
      code
      message
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),Gn=new k(`
    subscription AgentRunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind
    at
    delta
    toolId
    step
    toolCall {
      id
      toolId
      status
      latencyMs
      error {
        code
        message
      }
    }
    run {
      id
      status
      output
      steps
      error {
        code
        message
      }
    }
  }
}
    `),Wn=new k(`
    query AgentRun($id: ID!) {
  agentRun(id: $id) {
    ...RunRow
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),zn=new k(`
    query ApiKeys($first: Int!, $after: String, $state: ApiKeyState) {
  apiKeys(first: $first, after: $after, state: $state) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        label
        role
        createdAt
        expiresAt
        revokedAt
        lastUsedAt
        state
        space {
          id
          name
        }
      }
    }
  }
}
    `),Jn=new k(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey {
      id
    }
    secret
    userErrors {
      field
      code
      message
    }
  }
}
    `),Qn=new k(`
    mutation RevokeApiKey($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) {
    apiKey {
      id
      state
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Zn=new k(`
    subscription LiveToolCalls($filter: ToolCallFilter) {
  toolCalls(filter: $filter) {
    ...CallRow
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);new k(`
    query RecentToolCalls($filter: ToolCallFilter, $first: Int!, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...CallRow
      }
    }
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);const en=new k(`
    query KnowledgeBases($first: Int!, $after: String) {
  knowledgeBases(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        description
        documentCount
        createdAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),Yn=new k(`
    query KnowledgeBaseDocuments($id: ID!) {
  node(id: $id) {
    id
    ... on KnowledgeBase {
      documents(first: 100) {
        totalCount
        edges {
          node {
            id
            title
            source
            chunkCount
            createdAt
          }
        }
      }
    }
  }
}
    `),Xn=new k(`
    mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),er=new k(`
    mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document {
      id
      title
      chunkCount
    }
    outcome
    userErrors {
      field
      code
      message
    }
  }
}
    `),tr=new k(`
    query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(
    spaceId: $spaceId
    query: $query
    knowledgeBaseIds: $knowledgeBaseIds
    topK: $topK
  ) {
    text
    score
    headingPath
    chunkIndex
    source
    knowledgeBaseId
    document {
      id
      title
    }
  }
}
    `),nr=new k(`
    query McpServers($first: Int!, $after: String) {
  mcpServers(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        url
        command
        transport
        status
        authType
        lastSyncedAt
        lastError
        createdAt
        isGlobal
        boundSpaces {
          id
          name
        }
      }
    }
  }
}
    `),rr=new k(`
    query McpServerTools($id: ID!, $after: String) {
  node(id: $id) {
    ... on McpServer {
      id
      tools(first: 100, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            name
            label
            status
            driftedAt
          }
        }
      }
    }
  }
}
    `),sr=new k(`
    mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),lr=new k(`
    mutation SyncMcpServer($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer {
      id
      lastSyncedAt
      lastError
    }
    syncReport {
      pages
      added
      updated
      unchanged
      vanished
      disabled
      drifted
      reactivated
      skipped
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),or=new k(`
    query Skills($first: Int!, $after: String, $filter: SkillFilter) {
  skills(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        type
        status
        version
        candidateVersion
        canaryPercent
        space {
          id
          name
        }
      }
    }
  }
}
    `),ar=new k(`
    query SkillDetail($id: ID!) {
  skill(id: $id) {
    id
    name
    label
    description
    prompt
    category
    tags
    triggerHints
    boundary
    toolIds
    type
    status
    version
    charCount
    createdAt
    updatedAt
    canaryPercent
    candidateVersion
    space {
      id
      name
    }
    versions {
      version
      channel
      prompt
      createdAt
    }
    channelHistory {
      action
      channel
      fromVersion
      toVersion
      canaryPercent
      actor
      at
    }
  }
}
    `),ir=new k(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),cr=new k(`
    mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),dr=new k(`
    mutation PublishSkillVersion($input: PublishSkillVersionInput!) {
  publishSkillVersion(input: $input) {
    skillVersion {
      version
      channel
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ur=new k(`
    mutation PromoteSkillCandidate($input: PromoteSkillCandidateInput!) {
  promoteSkillCandidate(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),hr=new k(`
    mutation RollbackSkill($input: RollbackSkillInput!) {
  rollbackSkill(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),pr=new k(`
    mutation SetSkillCanary($input: SetSkillCanaryInput!) {
  setSkillCanary(input: $input) {
    skill {
      id
      canaryPercent
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),mr=new k(`
    mutation ImportSkill($input: ImportSkillInput!) {
  importSkill(input: $input) {
    skill {
      id
    }
    isCreated
    userErrors {
      field
      code
      message
    }
  }
}
    `),fr=new k(`
    query MatchSkills($spaceId: ID!, $query: String!, $topK: Int) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK) {
    score
    reason
    lexicalScore
    semanticScore
    boundaryFactor
    skill {
      id
      name
      label
    }
  }
}
    `),gr=new k(`
    query Spaces($first: Int!, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
        createdAt
      }
    }
  }
}
    `),br=new k(`
    query SpaceDetail($id: ID!) {
  space(id: $id) {
    id
    name
    label
    isSystem
    createdAt
    visibleTools(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          type
          isGlobal
        }
      }
    }
    skills(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          version
          space {
            id
          }
        }
      }
    }
    knowledgeBases(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          documentCount
        }
      }
    }
    agents(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          model
          status
        }
      }
    }
  }
}
    `),_r=new k(`
    mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space {
      id
      name
      label
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),yr=new k(`
    query Tools($first: Int!, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...ToolRow
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),vr=new k(`
    query SpaceTools($spaceId: ID!, $first: Int!, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    id
    visibleTools(
      first: $first
      after: $after
      filter: $filter
      includeInactive: true
    ) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...ToolRow
        }
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),tn=new k(`
    query ToolDetail($id: ID!) {
  tool(id: $id) {
    id
    name
    label
    description
    inputSchema
    outputSchema
    type
    status
    endpoint
    authType
    viewerCanManage
    sideEffect
    timeoutMs
    maxRetries
    tags
    group
    allowedRoles
    version
    owner
    createdAt
    updatedAt
    driftedAt
    isGlobal
    boundSpaces {
      id
      name
      label
    }
    mcpServer {
      id
      name
      isGlobal
      boundSpaces {
        id
        name
        label
      }
    }
    stats {
      calls
      failures
      failuresByCode
      p50LatencyMs
      p95LatencyMs
      lastCalledAt
    }
  }
}
    `),Sr=new k(`
    mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Ir=new k(`
    mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),kr=new k(`
    mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    mcpServer {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),at=new k(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),wr=new k(`
    mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status
    data
    traceId
    latencyMs
    error {
      code
      message
      detail
    }
  }
}
    `),nn=new k(`
    query Viewer {
  viewer {
    role
    keyId
    keyLabel
    space {
      id
      name
      label
    }
  }
}
    `),Cr=new k(`
    query SpaceOptions {
  spaces(first: 100) {
    edges {
      node {
        id
        name
        label
        isSystem
      }
    }
  }
}
    `),et="/console";function re(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):window.history.pushState(null,"",t),window.dispatchEvent(new PopStateEvent("popstate"))}function rn(){const[t,n]=h(Et);return V(()=>{const r=()=>n(Et());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function Et(){const t=window.location.pathname;return(t.startsWith(et)?t.slice(et.length):t).replace(/\/+$/,"")}function Ar(t){return rn(),new URLSearchParams(window.location.search).get(t)}function X(t){return`${et}${t}`}function $({to:t,children:n,...r}){return e("a",{...r,href:X(t),onClick:s=>{s.defaultPrevented||s.button!==0||s.metaKey||s.ctrlKey||s.shiftKey||(s.preventDefault(),re(X(t)))},children:n})}const $r=4e3;function Tr(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:s=>n==="ADMIN"||n==="SPACE_ADMIN"&&s!=null&&s===r}}const sn=Rn(null);function C(){const t=Mn(sn);if(t===null)throw new Error("useSession outside a signed-in console");return t}function H(t,n){const[r,s]=h({data:null,error:null,loading:!0}),[o,l]=h(0);V(()=>{let c=!0;return s(d=>({...d,loading:!0})),t().then(d=>c&&s({data:d,error:null,loading:!1}),d=>{c&&!(d instanceof nt)&&s(i=>({...i,error:ee(d),loading:!1}))}),()=>{c=!1}},[...n,o]);const a=qe(()=>l(c=>c+1),[]);return{...r,reload:a}}function ee(t){return t instanceof Error?t.message:String(t)}function K(){const[t,n]=h(!1),[r,s]=h([]),o=qe(async l=>{n(!0),s([]);try{const a=await l();return s(a.userErrors),a.userErrors.length===0?a:null}catch(a){return a instanceof nt||s([{field:null,code:"ERROR",message:ee(a)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:s,run:o}}function it(t,n){const r=n.split(".");return t.filter(s=>{const o=s.field??[];return o.length>=r.length&&r.every((l,a)=>o[o.length-r.length+a]===l)})}function Z({errors:t,fields:n}){const r=t.filter(s=>n.every(o=>!it([s],o).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((s,o)=>e("p",{children:[s.message," ",e("span",{class:"code",children:s.code})]},o))}):null}function oe({label:t,wide:n=!1,noValidate:r=!1,onSubmit:s,mutation:o,fields:l,submitLabel:a,cancel:c,notice:d,children:i}){return e("form",{class:n?"card form wide":"card form",onSubmit:s,"aria-label":t,noValidate:r,children:[i,e(Z,{errors:o.errors,fields:l}),d,e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:o.busy,children:a}),typeof c=="string"?e($,{class:"button",to:c,children:"Cancel"}):e("button",{type:"button",onClick:c,children:"Cancel"})]})]})}function we({label:t,name:n,errors:r=[],hint:s,children:o}){const l=Ln(),a=it(r,n),c=[s?`${l}-hint`:"",a.length?`${l}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${a.length?" invalid":""}`,children:[e("label",{for:l,children:t}),o({id:l,"aria-invalid":a.length>0,"aria-describedby":c||void 0}),s&&e("p",{class:"hint",id:`${l}-hint`,children:s}),a.length>0&&e("p",{class:"field-error",id:`${l}-error`,role:"alert",children:a.map(d=>d.message).join(" ")})]})}function w({label:t,name:n,value:r,onInput:s,errors:o,hint:l,type:a="text",...c}){return e(we,{label:t,name:n,errors:o,hint:l,children:d=>e("input",{...d,...c,name:n,type:a,value:r,onInput:i=>s(i.currentTarget.value)})})}function Y({label:t,name:n,value:r,onInput:s,errors:o,hint:l,rows:a=6,mono:c=!1}){return e(we,{label:t,name:n,errors:o,hint:l,children:d=>e("textarea",{...d,class:c?"mono":void 0,name:n,rows:a,value:r,spellcheck:!c,onInput:i=>s(i.currentTarget.value)})})}function q({label:t,name:n,value:r,options:s,onChange:o,errors:l,hint:a}){return e(we,{label:t,name:n,errors:l,hint:a,children:c=>e("select",{...c,name:n,value:s.some(([d])=>d===r)?r:s[0]?.[0],onChange:d=>o(d.currentTarget.value),children:s.map(([d,i])=>e("option",{value:d,children:i},d))})})}function he({legend:t,options:n,selected:r,onChange:s,errors:o=[],name:l}){const a=it(o,l);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(c=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(c.value),onChange:d=>s(d.currentTarget.checked?[...r,c.value]:r.filter(i=>i!==c.value))}),c.label]},c.value)),a.length>0&&e("p",{class:"field-error",role:"alert",children:a.map(c=>c.message).join(" ")})]})}function Be(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${ee(n)}`}}}function Ue(t){return JSON.stringify(t,null,2)}function ge({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":Ue(t)})}let Pt=!0;function M({title:t,children:n}){const r=Ve(null);return V(()=>{if(Pt){Pt=!1;return}r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function z({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function Ce({children:t}){return e("div",{class:"notice",role:"status",children:t})}function T({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function j(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"?"busy":"plain"}function F(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function pe(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function ae(t){const[n,r]=h([null]);return V(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:o=>o&&r(l=>[...l,o]),previous:()=>r(o=>o.length>1?o.slice(0,-1):o)}}function ie({label:t,page:n,pageSize:r,shown:s,total:o,hasNext:l,onNext:a,onPrevious:c}){const d=o===0?0:(n-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:c,disabled:n<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[d,"–",d+s-(s?1:0)," of ",o.toLocaleString()]}),e("button",{type:"button",onClick:a,disabled:!l,children:"Next page"})]})}const We=50,Er=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function Pr({sub:t}){if(t==="new")return e(ln,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(Kr,{id:decodeURIComponent(n)}):n?e(Mr,{id:decodeURIComponent(n)}):e(Rr,{})}function Q(){const{api:t}=C();return H(async()=>(await t.request(Cr,{})).spaces.edges.map(({node:n})=>n),[])}function Dr(t,n){const[r,s]=h(t);return V(()=>{const o=window.setTimeout(()=>s(t),n);return()=>window.clearTimeout(o)},[t,n]),r}function ve(t){const[n,r]=h(Ar(t)??"");return[n,o=>{r(o);const l=new URLSearchParams(window.location.search);o?l.set(t,o):l.delete(t);const a=l.toString();window.history.replaceState(null,"",`${window.location.pathname}${a?`?${a}`:""}`)}]}function Rr(){const{api:t,can:n}=C(),r=Q(),[s,o]=ve("search"),[l,a]=ve("type"),[c,d]=ve("status"),[i,p]=ve("binding"),[m,u]=ve("space"),b={search:Dr(s.trim(),250)||null,type:l||null,status:c||null,isGlobal:i===""?null:i==="global"},S=JSON.stringify([b,m]),_=ae(S),y=H(async()=>{if(m){const I=await t.request(vr,{spaceId:m,first:We,after:_.after,filter:b});if(!I.space)throw new Error(`Space ${m} is not visible to this key.`);return I.space.visibleTools}return(await t.request(yr,{first:We,after:_.after,filter:b})).tools},[S,_.after]),g=y.data;return e(v,{children:[e(M,{title:"Tools",children:n.manageSome&&e($,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:I=>I.preventDefault(),children:[e(w,{label:"Search",name:"search",value:s,onInput:o,placeholder:"name, label or description"}),e(q,{label:"Type",name:"type",value:l,onChange:a,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(q,{label:"Status",name:"status",value:c,onChange:d,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(q,{label:"Space",name:"space",value:m,onChange:u,options:[["",n.admin?"Every space":"My space"],...(r.data??[]).map(I=>[I.id,I.label])],hint:m?"Tools visible in this space.":void 0}),e(q,{label:"Binding",name:"scope",value:i,onChange:p,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(z,{error:y.error,retry:y.reload}),g&&e("div",{"aria-busy":y.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:g.edges.map(({node:I})=>e(Nr,{tool:I},I.id))})]}),g.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(ie,{label:"Tools",page:_.page,pageSize:We,shown:g.edges.length,total:g.totalCount,hasNext:g.pageInfo.hasNextPage,onNext:()=>_.next(g.pageInfo.endCursor),onPrevious:_.previous})]})]})}function Nr({tool:t}){return e("tr",{children:[e("td",{children:[e($,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(v,{children:[" ",e(T,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e(T,{children:t.type})}),e("td",{children:e(T,{tone:j(t.status),children:t.status})}),e("td",{children:xr(t)})]})}function xr(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function Mr({id:t}){const{api:n}=C(),r=H(()=>n.request(tn,{id:t}),[t]),s=r.data?.tool,o=new URLSearchParams(window.location.search).get("saved");return r.data&&!s?e(v,{children:[e(M,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e($,{to:"/tools",children:"Back to Tools"})]})]}):e(v,{children:[e(M,{title:s?`Tool ${s.name}`:"Tool",children:[e($,{class:"button",to:"/tools",children:"All tools"}),s?.type==="CUSTOM"&&s.viewerCanManage&&e($,{class:"button",to:`/tools/${encodeURIComponent(s.id)}/edit`,children:"Edit tool"})]}),e(z,{error:r.error,retry:r.reload}),o&&e(Ce,{children:["Tool ",o==="created"?"created":"saved","."]}),s&&e(v,{children:[e(qr,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:s.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Type"}),e("dd",{children:s.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:s.description}),s.endpoint&&e(v,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:s.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:s.authType==="NONE"?"none":`${s.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:s.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:s.version}),e("dt",{children:"Owner"}),e("dd",{children:s.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:s.tags.length?s.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:s.group??"—"}),s.driftedAt&&e(v,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e(T,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",F(s.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[s.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[s.maxRetries," ",s.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:s.allowedRoles.length?s.allowedRoles.join(", "):"every role"})]})]}),e(Br,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:s.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:s.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:pe(s.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:pe(s.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:F(s.stats.lastCalledAt)})]}),e(Lr,{value:s.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(ge,{label:"Input schema",value:s.inputSchema}),e("h3",{children:"Output schema"}),e(ge,{label:"Output schema",value:s.outputSchema})]}),e(Ur,{tool:s})]})]})}function Lr({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,s])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:s})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function qr({tool:t,onChanged:n}){const{api:r}=C(),s=K(),o=async l=>{await s.run(async()=>(await r.request(at,{input:{id:t.id,status:l}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e(T,{tone:j(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>o("ACTIVE"),disabled:s.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>o("DISABLED"),disabled:s.busy,children:"Disable tool"}),e(Z,{errors:s.errors,fields:[]})]})}function Br({tool:t,onChanged:n}){const{api:r,can:s}=C(),o=Q(),l=t.mcpServer,a=(l?l.boundSpaces:t.boundSpaces).map(S=>S.id),[c,d]=h(a);V(()=>d(a),[a.join(",")]);const i=K(),[p,m]=h(!1),u=l?l.isGlobal:t.isGlobal,f=async S=>{S.preventDefault(),m(!1),await i.run(async()=>(await r.request(kr,{input:{id:l?l.id:t.id,spaceIds:c}})).setSpaceBindings)&&(m(!0),n())},b=(l?l.boundSpaces:t.boundSpaces).map(S=>S.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[u?e(v,{children:[e(T,{children:"global"})," no binding row: every space sees this tool"]}):e(v,{children:[e(T,{tone:"busy",children:"bound"})," only these spaces see it: ",b]}),l&&e(v,{children:[" ","— inherited from MCP server ",e("strong",{children:l.name})]}),"."]}),s.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":l?`Bindings of MCP server ${l.name}`:"Bindings",children:[e(he,{legend:l?`Spaces bound to MCP server ${l.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(S=>({value:S.id,label:`${S.label} (${S.name})`})),selected:c,onChange:d,errors:i.errors}),e(Z,{errors:i.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:i.busy,children:"Save bindings"}),p&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function Ur({tool:t}){const{api:n,can:r,viewer:s}=C(),o=Q(),[l,a]=h(s.space?.id??""),[c,d]=h("{}"),[i,p]=h(null),[m,u]=h(null),[f,b]=h(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const S=(o.data??[]).map(y=>[y.id,y.label]);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async y=>{y.preventDefault();const g=Be(c);if(g.problem){u(g.problem);return}b(!0),u(null);try{const I=await n.request(wr,{input:{spaceId:l||S[0]?.[0]||"",toolId:t.id,arguments:g.value??{}}});p(I.invokeTool)}catch(I){u(ee(I))}finally{b(!1)}},children:[r.admin&&e(q,{label:"Call in space",name:"spaceId",value:l,onChange:a,options:S}),e(we,{label:"Arguments (JSON)",name:"arguments",errors:m?[{field:["arguments"],code:"JSON",message:m}]:[],children:y=>e("textarea",{...y,class:"mono",rows:4,value:c,onInput:g=>d(g.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),i&&e("div",{class:"result",role:"status",children:[e("p",{children:[e(T,{tone:j(i.status),children:i.status})," in ",pe(i.latencyMs)," · trace ",e("code",{children:i.traceId})]}),i.error?e("p",{children:[e("code",{children:i.error.code})," ",i.error.message]}):e(ge,{label:"Result",value:i.data})]})]})}function Kr({id:t}){const{api:n}=C(),r=H(()=>n.request(tn,{id:t}),[t]);return r.error?e(z,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(ln,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const Or=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],Vr=Ue({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Dt(t,n){const r=Be(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function ln({tool:t}){const{api:n,can:r,viewer:s}=C(),o=Q(),l=t===null,[a,c]=h(t?.name??""),[d,i]=h(t?.label??""),[p,m]=h(t?.description??""),[u,f]=h(t?Ue(t.inputSchema):Vr),[b,S]=h(t?.outputSchema?Ue(t.outputSchema):""),[_,y]=h(t?.endpoint??""),[g,I]=h(t?.authType??"NONE"),[L,D]=h(""),[G,A]=h(""),[J,E]=h(""),[P,O]=h(""),[Ae,W]=h(t?.sideEffect??"READ"),[se,ct]=h(t?String(t.timeoutMs):""),[me,N]=h(t?String(t.maxRetries):""),[be,ce]=h(t?.tags.join(", ")??""),[dt,un]=h(t?.group??""),[ut,hn]=h(t?.allowedRoles??[]),[ht,pn]=h(t?.version??""),[pt,mn]=h(t?.owner??""),[Fe,fn]=h(!r.admin&&s.space?[s.space.id]:[]),$e=K(),mt=fe(()=>Dt(u,!0),[u]),ft=fe(()=>Dt(b,!1),[b]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const He=[...mt?[{field:["input","inputSchema"],code:"INVALID_JSON",message:mt}]:[],...ft?[{field:["input","outputSchema"],code:"INVALID_JSON",message:ft}]:[]],B=[...He,...$e.errors.filter(te=>!He.some(Te=>Te.field.join()===te.field?.join()))],gn=l||g!==t?.authType||G!==""||L!==""||J!==""||P!=="",bn=async te=>{if(te.preventDefault(),He.length)return;const Te=gn?{type:g,headerName:L||null,secret:G||null,tokenUrl:J||null,clientId:P||null}:null,gt={label:d,description:p,inputSchema:Be(u).value,outputSchema:Be(b).value,endpoint:_,sideEffect:Ae,timeoutMs:se?Number(se):null,maxRetries:me?Number(me):null,tags:be.split(",").map(_e=>_e.trim()).filter(Boolean),group:dt||(l?null:""),allowedRoles:ut,version:ht||null,owner:pt||(l?null:"")};if(l){const _e={...gt,name:a,auth:Te,spaceIds:Fe.length?Fe:null},ye=await $e.run(async()=>(await n.request(Sr,{input:_e})).createTool);ye?.tool&&re(X(`/tools/${encodeURIComponent(ye.tool.id)}?saved=created`))}else{const _e={...gt,id:t.id,auth:Te},ye=await $e.run(async()=>(await n.request(Ir,{input:_e})).updateTool);ye?.tool&&re(X(`/tools/${encodeURIComponent(ye.tool.id)}?saved=updated`))}A("")},_n=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(v,{children:[e(M,{title:l?"Create tool":`Edit tool ${t.name}`}),e(oe,{wide:!0,noValidate:!0,onSubmit:bn,mutation:$e,fields:_n,submitLabel:l?"Create tool":"Save tool",cancel:l?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),l?e(w,{label:"Name",name:"name",value:a,onInput:c,errors:B,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(w,{label:"Label",name:"label",value:d,onInput:i,errors:B}),e(Y,{label:"Description",name:"description",value:p,onInput:m,errors:B,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(w,{label:"Endpoint",name:"endpoint",value:_,onInput:y,errors:B,type:"url",placeholder:"https://…"}),e(Y,{label:"Input schema",name:"inputSchema",value:u,onInput:f,errors:B,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(Y,{label:"Output schema",name:"outputSchema",value:b,onInput:S,errors:B,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!l&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(q,{label:"Authentication",name:"auth.type",value:g,onChange:I,options:Or,errors:B}),(g==="API_KEY"||g==="HEADER")&&e(w,{label:"Header name",name:"auth.headerName",value:L,onInput:D,errors:B}),g==="OAUTH_CLIENT_CREDENTIALS"&&e(v,{children:[e(w,{label:"Token URL",name:"auth.tokenUrl",value:J,onInput:E,errors:B,type:"url"}),e(w,{label:"Client id",name:"auth.clientId",value:P,onInput:O,errors:B})]}),g!=="NONE"&&e(w,{label:"Secret",name:"auth.secret",value:G,onInput:A,errors:B,type:"password",autoComplete:"new-password",hint:l?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(q,{label:"Side effect",name:"sideEffect",value:Ae,onChange:W,errors:B,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(w,{label:"Timeout (ms)",name:"timeoutMs",value:se,onInput:ct,errors:B,type:"number",placeholder:"10000"}),e(w,{label:"Max retries",name:"maxRetries",value:me,onInput:N,errors:B,type:"number",placeholder:"1"}),e(he,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Er.map(te=>({value:te,label:te})),selected:ut,onChange:hn,errors:B})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(w,{label:"Tags",name:"tags",value:be,onInput:ce,errors:B,hint:"Comma-separated."}),e(w,{label:"Group",name:"group",value:dt,onInput:un,errors:B}),e(w,{label:"Version",name:"version",value:ht,onInput:pn,errors:B,placeholder:"1.0.0"}),e(w,{label:"Owner",name:"owner",value:pt,onInput:mn,errors:B})]}),l&&r.admin&&e(he,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(te=>({value:te.id,label:`${te.label} (${te.name})`})),selected:Fe,onChange:fn,errors:B})]})]})}const Rt=50;function Fr({sub:t}){return t==="new"?e(on,{agent:null}):t?e(jr,{id:decodeURIComponent(t)}):e(Hr,{})}function Hr(){const{api:t,can:n}=C(),r=ae("agents"),s=H(()=>t.request(Un,{first:Rt,after:r.after}),[r.after]),o=s.data?.agents;return e(v,{children:[e(M,{title:"Agents",children:n.manageSome&&e($,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(z,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:e($,{to:`/agents/${encodeURIComponent(l.id)}`,children:l.name})}),e("td",{children:l.space.name}),e("td",{children:e("code",{children:l.model})}),e("td",{children:e(T,{tone:j(l.status),children:l.status})}),e("td",{children:F(l.updatedAt)})]},l.id))})]}),o.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(ie,{label:"Agents",page:r.page,pageSize:Rt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous})]})]})}function jr({id:t}){const{api:n,can:r}=C(),s=H(()=>n.request(Kn,{id:t}),[t]),o=s.data?.agent,[l,a]=h(!1);if(s.data&&!o)return e(v,{children:[e(M,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e($,{to:"/agents",children:"Back to Agents"})]})]});const c=o?r.manage(o.space.id):!1;return e(v,{children:[e(M,{title:o?`Agent ${o.name}`:"Agent",children:[e($,{class:"button",to:"/agents",children:"All agents"}),c&&!l&&e("button",{type:"button",onClick:()=>a(!0),children:"Edit manifest"})]}),e(z,{error:s.error,retry:s.reload}),o&&l&&e(on,{agent:o,onSaved:()=>{a(!1),s.reload()},onCancel:()=>a(!1)}),o&&!l&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:o.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:o.model})}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:j(o.status),children:o.status})}),e("dt",{children:"Max steps"}),e("dd",{children:o.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:o.mountedKnowledgeBases.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:o.activatedTools.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:o.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:o.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:o.outputFormat??"—"})]}),e(Wr,{agentId:o.id}),r.invoke&&o.status==="ACTIVE"&&e(zr,{agentId:o.id,onFinished:s.reload}),e(Jr,{agent:o})]})]})}function Gr(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function on({agent:t,onSaved:n,onCancel:r}){const{api:s,can:o,viewer:l}=C(),a=Q(),[c,d]=h(t?.space.id??l.space?.id??""),[i,p]=h(t?.name??""),[m,u]=h(t?.model??""),[f,b]=h(t?.systemPrompt??""),[S,_]=h(String(t?.maxSteps??5)),[y,g]=h(t?.outputFormat??""),[I,L]=h(t?.mountedKnowledgeBases.map(N=>N.id)??[]),[D,G]=h(t?.activatedTools.map(N=>N.id)??[]),[A,J]=h(t?.boundSkillReferences.join(`
`)??""),[E,P]=h([]),O=c||a.data?.find(N=>!N.isSystem)?.id||"",Ae=H(async()=>O?(await s.request(On,{spaceId:O})).space:null,[O]),W=K();if(!o.manageSome)return e("p",{children:"This key cannot create or change agents."});const se=Ae.data,me=e(oe,{label:"Agent manifest",wide:!0,onSubmit:async N=>{N.preventDefault();const be={name:i,model:m,systemPrompt:f,maxSteps:Number(S)||null,outputFormat:y||(t?"":null),mountedKnowledgeBaseIds:I,activatedToolIds:D,boundSkillIds:Gr(A)};if(t){const ce=await W.run(async()=>(await s.request(Fn,{input:{id:t.id,...be}})).updateAgent);ce&&(P(ce.notices),n?.())}else{const ce=await W.run(async()=>(await s.request(Vn,{input:{...be,spaceId:O,maxSteps:Number(S)||5}})).createAgent);ce?.agent&&re(X(`/agents/${encodeURIComponent(ce.agent.id)}`))}},mutation:W,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"],submitLabel:t?"Save manifest":"Create agent",cancel:t&&r?r:"/agents",notice:E.length>0&&e(Ce,{children:e("ul",{class:"plain",children:E.map(N=>e("li",{children:N},N))})}),children:[!t&&o.admin&&e(q,{label:"Space",name:"spaceId",value:O,onChange:d,errors:W.errors,options:(a.data??[]).map(N=>[N.id,N.label])}),e(w,{label:"Name",name:"name",value:i,onInput:p,errors:W.errors}),e(w,{label:"Model",name:"model",value:m,onInput:u,errors:W.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(Y,{label:"System prompt",name:"systemPrompt",value:f,onInput:b,errors:W.errors,rows:6}),e(w,{label:"Max steps",name:"maxSteps",value:S,onInput:_,errors:W.errors,type:"number"}),e(Y,{label:"Output format",name:"outputFormat",value:y,onInput:g,errors:W.errors,rows:2}),se&&e(v,{children:[e(he,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:se.knowledgeBases.edges.map(({node:N})=>({value:N.id,label:N.label})),selected:I,onChange:L,errors:W.errors}),e(he,{legend:"Tools",name:"activatedToolIds",options:se.visibleTools.edges.map(({node:N})=>({value:N.id,label:`${N.name} — ${N.label}`})),selected:D,onChange:G,errors:W.errors}),e(Y,{label:"Skills",name:"boundSkillIds",value:A,onInput:J,errors:W.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${se.skills.edges.map(({node:N})=>N.id).join(", ")||"none"}.`})]})]});return t?me:e(v,{children:[e(M,{title:"Create agent"}),me]})}function Wr({agentId:t}){const{api:n}=C(),[r,s]=h(""),[o,l]=h(null),[a,c]=h(null),d=async p=>{p.preventDefault(),c(null);try{l((await n.request(Hn,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(m){c(ee(m))}},i=o?Math.min(100,Math.round(o.charCount/Math.max(1,o.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:d,"aria-label":"Preview the prompt",children:[e(w,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:s}),e("button",{type:"submit",children:"Preview prompt"})]}),a&&e("p",{role:"alert",children:a}),o&&e("div",{children:[e("p",{children:[o.charCount.toLocaleString()," of ",o.budgetChars.toLocaleString()," characters (",i,"% of the budget), about"," ",o.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:o.budgetChars,value:o.charCount,"aria-label":"Prompt budget used"}),o.warnings.map(p=>e("p",{class:"error-text",children:p},p)),e("ol",{class:"sections",children:o.sections.map((p,m)=>e("li",{class:"card",children:[e("p",{children:[e(T,{children:p.kind})," ",p.source&&e("code",{children:p.source})," ",p.truncated&&e(T,{tone:"bad",children:"cut to fit"})]}),p.reason&&e("p",{class:"muted",children:p.reason}),e("pre",{class:"json",children:p.text})]},m))})]})]})}function zr({agentId:t,onFinished:n}){const{api:r}=C(),[s,o]=h(""),[l,a]=h([]),[c,d]=h(null),[i,p]=h(""),m=K(),u=Ve(null);return V(()=>()=>u.current?.(),[]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async b=>{b.preventDefault(),u.current?.(),a([]),p(""),d(null);const _=(await m.run(async()=>(await r.request(jn,{input:{agentId:t,message:s,async:!0}})).invokeAgent))?.run;_&&(d(_),u.current=r.subscribe(Gn,{runId:_.id},{next:y=>{const g=y.agentRunEvents;a(I=>[...I,g]),g.delta&&p(I=>I+g.delta),g.kind==="FINISHED"&&(r.request(Wn,{id:_.id}).then(I=>I.agentRun&&d(I.agentRun),()=>{}),n())},error:y=>m.setErrors([{field:null,code:"STREAM",message:y.message}])}))},children:[e(Y,{label:"Message",name:"message",value:s,onInput:o,errors:m.errors,rows:3}),e(Z,{errors:m.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:m.busy,children:"Run agent"})]}),c&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:c.id})," ",e(T,{tone:j(c.status),children:c.status})]}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:l.map((b,S)=>e("li",{children:[e(T,{children:b.kind})," ",e("span",{class:"muted",children:F(b.at)}),b.step!==null&&b.step!==void 0&&e(v,{children:[" step ",b.step]}),b.toolId&&e(v,{children:[" ","tool ",e("code",{children:b.toolId})]}),b.toolCall&&e(v,{children:[" ",e(T,{tone:j(b.toolCall.status),children:b.toolCall.status})," ",pe(b.toolCall.latencyMs)]}),b.kind==="FINISHED"&&b.run.error&&e(v,{children:[" ",b.run.error.message]})]},S))}),(c.output||i)&&e(v,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:c.output??i})]}),c.error&&e("p",{class:"error-text",children:c.error.message})]})]})}function Jr({agent:t}){const n=t.runs.edges.map(({node:r})=>r);return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(r=>e("details",{class:"card run",children:[e("summary",{children:[e(T,{tone:j(r.status),children:r.status})," ",F(r.startedAt)," — ",r.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:r.id})}),e("dt",{children:"Steps"}),e("dd",{children:r.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[r.promptTokens??"—"," in, ",r.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:r.output??r.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:r.toolCalls.map(s=>e("tr",{children:[e("td",{children:e("code",{children:s.toolId})}),e("td",{children:[e(T,{tone:j(s.status),children:s.status})," ",s.error?.code]}),e("td",{children:pe(s.latencyMs)}),e("td",{children:e(ge,{label:`Arguments of ${s.id}`,value:s.arguments})})]},s.id))})]})]},r.id))]})}const Nt=50;function Qr(t){return t==="ACTIVE"?"good":"bad"}function Zr(){const{api:t,can:n,viewer:r}=C(),[s,o]=h("ACTIVE"),[l,a]=h(!1),[c,d]=h(null),i=ae(s),p=H(()=>t.request(zn,{first:Nt,after:i.after,state:s||null}),[s,i.after]),m=p.data?.apiKeys;return e(v,{children:[e(M,{title:"API keys",children:n.manageSome&&!l&&e("button",{type:"button",class:"primary",onClick:()=>a(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),l&&e(Xr,{onDone:u=>{a(!1),u&&(d(u),p.reload())}}),c&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:c.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:c.secret,onFocus:u=>u.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(c.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>d(null),children:"Done"})]})]}),n.manageSome&&e(v,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:u=>u.preventDefault(),children:e(q,{label:"State",name:"state",value:s,onChange:o,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(z,{error:p.error,retry:p.reload}),m&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:m.edges.map(({node:u})=>e(Yr,{apiKey:u,isCurrent:u.id===r.keyId,onChanged:p.reload},u.id))})]}),m.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(ie,{label:"API keys",page:i.page,pageSize:Nt,shown:m.edges.length,total:m.totalCount,hasNext:m.pageInfo.hasNextPage,onNext:()=>i.next(m.pageInfo.endCursor),onPrevious:i.previous})]})]})]})}function Yr({apiKey:t,isCurrent:n,onChanged:r}){const{api:s}=C(),[o,l]=h(!1),a=K(),c=t.label??t.id,d=async()=>{const i=await a.run(async()=>(await s.request(Qn,{input:{id:t.id}})).revokeApiKey);l(!1),i&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e(T,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:F(t.createdAt)}),e("td",{children:F(t.expiresAt)}),e("td",{children:F(t.lastUsedAt)}),e("td",{children:e(T,{tone:Qr(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(o?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:d,disabled:a.busy,children:["Confirm revoke ",c]}),e("button",{type:"button",onClick:()=>l(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>l(!0),"aria-label":`Revoke ${c}`,children:"Revoke"})),e(Z,{errors:a.errors,fields:[]})]})]})}function Xr({onDone:t}){const{api:n,can:r,viewer:s}=C(),o=Q(),l=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[a,c]=h("MEMBER"),[d,i]=h(s.space?.id??""),[p,m]=h(""),[u,f]=h(""),b=K(),S=o.data?.[0]?.id??"";return e(oe,{label:"Create API key",onSubmit:async y=>{y.preventDefault();const g=await b.run(async()=>(await n.request(Jn,{input:{role:a,spaceId:a==="ADMIN"?null:d||S||null,label:p||null,expiresAt:u?new Date(u).toISOString():null}})).createApiKey);g?.apiKey&&g.secret&&t({id:g.apiKey.id,secret:g.secret})},mutation:b,fields:["role","spaceId","label","expiresAt"],submitLabel:"Create key",cancel:()=>t(null),children:[e(q,{label:"Role",name:"role",value:a,onChange:c,errors:b.errors,options:l.map(y=>[y,y])}),r.admin&&a!=="ADMIN"&&e(q,{label:"Space",name:"spaceId",value:d,onChange:i,errors:b.errors,options:(o.data??[]).map(y=>[y.id,y.label])}),e(w,{label:"Label",name:"label",value:p,onInput:m,errors:b.errors,hint:"A note to recognise the key by."}),e(w,{label:"Expires",name:"expiresAt",value:u,onInput:f,errors:b.errors,type:"datetime-local",hint:"Your local time; empty: never."})]})}const xt=50,tt=[".md",".markdown",".txt",".html",".htm"];function es({sub:t}){return t==="new"?e(ns,{}):t?e(rs,{id:decodeURIComponent(t)}):e(ts,{})}function ts(){const{api:t,can:n}=C(),r=ae("kbs"),s=H(()=>t.request(en,{first:xt,after:r.after}),[r.after]),o=s.data?.knowledgeBases;return e(v,{children:[e(M,{title:"Knowledge",children:n.manageSome&&e($,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(z,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:e($,{to:`/knowledge/${encodeURIComponent(l.id)}`,children:l.label})}),e("td",{children:e("code",{children:l.name})}),e("td",{children:l.space.name}),e("td",{children:l.documentCount}),e("td",{children:F(l.createdAt)})]},l.id))})]}),o.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(ie,{label:"Knowledge bases",page:r.page,pageSize:xt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous}),e(an,{bases:o.edges.map(({node:l})=>({id:l.id,label:l.label,spaceId:l.space.id}))})]})]})}function ns(){const{api:t,can:n,viewer:r}=C(),s=Q(),[o,l]=h(r.space?.id??""),[a,c]=h(""),[d,i]=h(""),[p,m]=h(""),u=K();return n.manageSome?e(v,{children:[e(M,{title:"Create knowledge base"}),e(oe,{onSubmit:async b=>{b.preventDefault();const S=await u.run(async()=>(await t.request(Xn,{input:{spaceId:o||s.data?.[0]?.id||"",name:a,label:d,description:p||null}})).createKnowledgeBase);S?.knowledgeBase&&re(X(`/knowledge/${encodeURIComponent(S.knowledgeBase.id)}`))},mutation:u,fields:["spaceId","name","label","description"],submitLabel:"Create knowledge base",cancel:"/knowledge",children:[n.admin&&e(q,{label:"Space",name:"spaceId",value:o,onChange:l,errors:u.errors,options:(s.data??[]).map(b=>[b.id,b.label])}),e(w,{label:"Name",name:"name",value:a,onInput:c,errors:u.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(w,{label:"Label",name:"label",value:d,onInput:i,errors:u.errors}),e(Y,{label:"Description",name:"description",value:p,onInput:m,errors:u.errors,rows:2})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function rs({id:t}){const{api:n,can:r}=C(),s=H(()=>n.request(Yn,{id:t}),[t]),o=H(()=>n.request(en,{first:100,after:null}),[]),l=o.data?.knowledgeBases.edges.map(({node:d})=>d).find(d=>d.id===t),a=s.data?.node,c=a&&"documents"in a?a.documents:null;return e(v,{children:[e(M,{title:l?`Knowledge base ${l.label}`:"Knowledge base",children:e($,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(z,{error:s.error??o.error,retry:s.reload}),l&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:l.name})}),e("dt",{children:"Space"}),e("dd",{children:l.space.name}),e("dt",{children:"Description"}),e("dd",{children:l.description??"—"})]}),l&&r.manage(l.space.id)&&e(ls,{knowledgeBaseId:t,onAdded:s.reload}),c&&e("table",{children:[e("caption",{children:["Documents (",c.totalCount,")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:c.edges.map(({node:d})=>e("tr",{children:[e("td",{children:d.title}),e("td",{children:d.source??"—"}),e("td",{children:d.chunkCount}),e("td",{children:F(d.createdAt)})]},d.id))})]}),l&&e(an,{bases:[{id:l.id,label:l.label,spaceId:l.space.id}]})]})}async function ss(t){const n=t.name.toLowerCase();if(!tt.some(l=>n.endsWith(l)))throw new Error(`${t.name}: only ${tt.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),s=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const l=new DOMParser().parseFromString(r,"text/html"),a=[];return l.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(c=>{const d=c.textContent?.trim();if(!d)return;const i=/^H([1-6])$/.exec(c.tagName)?.[1];a.push(i?`${"#".repeat(Number(i))} ${d}`:d)}),{title:l.title.trim()||s,text:a.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||s,text:r}}function ls({knowledgeBaseId:t,onAdded:n}){const{api:r}=C(),[s,o]=h([]),[l,a]=h(!1),c=async d=>{if(!d?.length)return;a(!0);const i=[];for(const p of Array.from(d))try{const{title:m,text:u}=await ss(p),f=(await r.request(er,{input:{knowledgeBaseId:t,title:m,text:u,source:p.name}})).addDocument;i.push(f.userErrors.length?`${p.name}: ${f.userErrors.map(b=>b.message).join(" ")}`:`${p.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(m){i.push(ee(m))}o(i),a(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:tt.join(","),disabled:l,onChange:d=>c(d.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),s.length>0&&e(Ce,{children:e("ul",{class:"plain",children:s.map(d=>e("li",{children:d},d))})})]})}function an({bases:t}){const{api:n,viewer:r}=C(),s=Q(),[o,l]=h(r.space?.id??t[0]?.spaceId??""),[a,c]=h(""),[d,i]=h("5"),[p,m]=h([]),[u,f]=h(null),[b,S]=h(null),_=t.filter(g=>g.spaceId===o);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),S(null);try{const I=await n.request(tr,{spaceId:o,query:a,topK:Number(d)||5,knowledgeBaseIds:p.length?p.filter(L=>_.some(D=>D.id===L)):null});f(I.searchKnowledge)}catch(I){S(ee(I))}},role:"search","aria-label":"Search knowledge",children:[!r.space&&e(q,{label:"Space",name:"spaceId",value:o,onChange:l,options:(s.data??[]).map(g=>[g.id,g.label])}),e(w,{label:"Query",name:"query",value:a,onInput:c}),e(w,{label:"Results",name:"topK",value:d,onInput:i,type:"number"}),_.length>1&&e(he,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:_.map(g=>({value:g.id,label:g.label})),selected:p,onChange:m}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),b&&e("p",{class:"form-errors",role:"alert",children:b}),u&&e("ol",{class:"hits","aria-label":"Search results",children:[u.length===0&&e("li",{children:"No passage matches."}),u.map(g=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",g.score.toFixed(4)]})," · ",e("strong",{children:g.document.title}),g.headingPath.length>0&&e(v,{children:[" › ",g.headingPath.join(" › ")]})]}),e("blockquote",{children:g.text}),e("p",{class:"citation",children:["Cite: ",g.document.title,g.source?`, ${g.source}`:"",", passage ",g.chunkIndex+1]})]},`${g.document.id}-${g.chunkIndex}`))]})]})}const ze=500;function os(){const{api:t}=C(),n=Q(),[r,s]=h(""),[o,l]=h(""),[a,c]=h(""),[d,i]=h([]),[p,m]=h([]),[u,f]=h(!1),[b,S]=h(null),[_,y]=h("connecting"),[g,I]=h(null),L=Ve(u);L.current=u;const D=o.trim();return V(()=>t.onSocketState(y),[t]),V(()=>{I(null);const A={spaceId:r||null,toolId:D||null,status:a||null};return t.subscribe(Zn,{filter:A},{next:E=>{const P=E.toolCalls;L.current?m(O=>[P,...O].slice(0,ze)):i(O=>[P,...O].slice(0,ze))},error:E=>I(E.message)})},[t,r,D,a]),e(v,{children:[e(M,{title:"Live calls",children:[u?e("button",{type:"button",onClick:()=>{i(A=>[...p,...A].slice(0,ze)),m([]),f(!1)},children:["Resume (",p.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>i([]),children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[_==="connected"?"Listening: every finished call appears here as it happens.":_==="connecting"?"Connecting…":"Disconnected.",u&&" Paused: new calls wait until you resume."]}),g&&e("p",{class:"form-errors",role:"alert",children:g}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:A=>A.preventDefault(),children:[e(q,{label:"Space",name:"spaceId",value:r,onChange:s,options:[["","Every space"],...(n.data??[]).map(A=>[A.id,A.label])]}),e(w,{label:"Tool id",name:"toolId",value:o,onInput:l,placeholder:"e.g. bt_calculator"}),e(q,{label:"Status",name:"status",value:a,onChange:c,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:d.map(A=>e("tr",{class:b?.id===A.id?"selected":void 0,children:[e("td",{children:F(A.startedAt)}),e("td",{children:e("code",{children:A.toolId})}),e("td",{children:A.space.name}),e("td",{children:[e(T,{tone:j(A.status),children:A.status})," ",A.error?.code]}),e("td",{children:pe(A.latencyMs)}),e("td",{children:A.agent?`agent ${A.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:()=>S(A),"aria-label":`Open call ${A.id}`,children:"Open"})})]},A.id))})]}),d.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),b&&e(as,{call:b,onClose:()=>S(null)})]})}function as({call:t,onClose:n}){const r=Ve(null);return V(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e($,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:j(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:F(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[pe(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(v,{children:["agent ",e($,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(v,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(ge,{label:"Arguments",value:t.arguments}),t.error?e(v,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(v,{children:[e("h3",{children:"Result"}),e(ge,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const Je=20,Mt=100;function is(){const{api:t,can:n}=C(),r=ae("mcp"),s=H(()=>t.request(nr,{first:Je,after:r.after}),[r.after]),[o,l]=h(!1),a=s.data?.mcpServers;return e(v,{children:[e(M,{title:"MCP servers",children:n.admin&&!o&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Register MCP server"})}),o&&e(us,{onDone:c=>{l(!1),c&&s.reload()}}),e(z,{error:s.error,retry:s.reload}),a&&a.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),a?.edges.map(({node:c})=>e(cs,{server:c,onChanged:s.reload},c.id)),a&&a.totalCount>Je&&e(ie,{label:"MCP servers",page:r.page,pageSize:Je,shown:a.edges.length,total:a.totalCount,hasNext:a.pageInfo.hasNextPage,onNext:()=>r.next(a.pageInfo.endCursor),onPrevious:r.previous})]})}function cs({server:t,onChanged:n}){const{api:r,can:s}=C(),o=K(),l=K(),[a,c]=h(null),d=ae(`mcp-tools-${t.id}`),i=H(()=>r.request(rr,{id:t.id,after:d.after}),[t.id,d.after]),p=i.data?.node&&"tools"in i.data.node?i.data.node.tools:null,m=p?.edges.filter(({node:_})=>_.driftedAt)??[],u=()=>{i.reload(),n()},f=async()=>{c(null);const _=await o.run(async()=>(await r.request(lr,{id:t.id})).syncMcpServer);_?.syncReport&&c(_.syncReport),u()},b=async(_,y)=>{await l.run(async()=>(await r.request(at,{input:{id:_,status:y}})).setStatus)&&u()},S=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":S,children:[e("h2",{id:S,children:[t.name," ",e(T,{tone:j(t.status),children:t.status})," ",e(T,{children:t.transport}),m.length>0&&e(T,{tone:"bad",children:[m.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(_=>_.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:F(t.lastSyncedAt)}),t.lastError&&e(v,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),s.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:f,disabled:o.busy,children:o.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>b(t.id,"DISABLED"),disabled:l.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>b(t.id,"ACTIVE"),disabled:l.busy,children:"Re-activate server"})]}),e(Z,{errors:[...o.errors,...l.errors],fields:[]}),a&&e(ds,{report:a}),e("h3",{children:["Tools",p?` (${p.totalCount})`:""]}),e(z,{error:i.error,retry:i.reload}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),s.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:p?.edges.map(({node:_})=>e("tr",{children:[e("td",{children:e($,{to:`/tools/${encodeURIComponent(_.id)}`,children:_.name})}),e("td",{children:e(T,{tone:j(_.status),children:_.status})}),e("td",{children:_.driftedAt?e(T,{tone:"bad",children:["drifted ",F(_.driftedAt)]}):"—"}),s.admin&&e("td",{children:_.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>b(_.id,"ACTIVE"),disabled:l.busy,"aria-label":`Re-activate ${_.name}`,children:"Re-activate"})})]},_.id))})]}),p&&p.totalCount>Mt&&e(ie,{label:`Tools of ${t.name}`,page:d.page,pageSize:Mt,shown:p.edges.length,total:p.totalCount,hasNext:p.pageInfo.hasNextPage,onNext:()=>d.next(p.pageInfo.endCursor),onPrevious:d.previous})]})}function ds({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,s])=>e(v,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:s.join(", ")},`${r}-d`)]}))})]})}function us({onDone:t}){const{api:n}=C(),r=Q(),[s,o]=h(""),[l,a]=h("STREAMABLE_HTTP"),[c,d]=h(""),[i,p]=h(""),[m,u]=h("NONE"),[f,b]=h(""),[S,_]=h(""),[y,g]=h([]),I=K();return e(oe,{label:"Register MCP server",onSubmit:async D=>{D.preventDefault(),await I.run(async()=>(await n.request(sr,{input:{name:s,transport:l,url:l==="STDIO"?null:c,command:l==="STDIO"?i.split(/\s+/).filter(Boolean):null,auth:m==="NONE"?null:{type:m,headerName:f||null,secret:S||null},spaceIds:y.length?y:null}})).registerMcpServer)&&t(!0)},mutation:I,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"],submitLabel:"Register server",cancel:()=>t(!1),children:[e(w,{label:"Name",name:"name",value:s,onInput:o,errors:I.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(q,{label:"Transport",name:"transport",value:l,onChange:a,errors:I.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),l==="STDIO"?e(w,{label:"Command",name:"command",value:i,onInput:p,errors:I.errors,hint:"The program and its arguments, separated by spaces."}):e(w,{label:"URL",name:"url",value:c,onInput:d,errors:I.errors,type:"url"}),e(q,{label:"Authentication",name:"auth.type",value:m,onChange:u,errors:I.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(m==="API_KEY"||m==="HEADER")&&e(w,{label:"Header name",name:"auth.headerName",value:f,onInput:b,errors:I.errors}),m!=="NONE"&&e(w,{label:"Secret",name:"auth.secret",value:S,onInput:_,errors:I.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e(he,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(D=>({value:D.id,label:`${D.label} (${D.name})`})),selected:y,onChange:g,errors:I.errors})]})}const hs=4e6;function ps(t,n){const r=t.split(`
`),s=n.split(`
`);if(r.length*s.length>hs)return[...r.map(d=>({kind:"removed",text:d})),...s.map(d=>({kind:"added",text:d}))];const o=Array.from({length:r.length+1},()=>new Uint32Array(s.length+1));for(let d=r.length-1;d>=0;d-=1)for(let i=s.length-1;i>=0;i-=1)o[d][i]=r[d]===s[i]?o[d+1][i+1]+1:Math.max(o[d+1][i],o[d][i+1]);const l=[];let a=0,c=0;for(;a<r.length&&c<s.length;)r[a]===s[c]?(l.push({kind:"same",text:r[a]}),a+=1,c+=1):o[a+1][c]>=o[a][c+1]?(l.push({kind:"removed",text:r[a]}),a+=1):(l.push({kind:"added",text:s[c]}),c+=1);for(;a<r.length;a+=1)l.push({kind:"removed",text:r[a]});for(;c<s.length;c+=1)l.push({kind:"added",text:s[c]});return l}const Lt=50;function ms({sub:t}){return t==="new"?e(gs,{}):t==="import"?e(bs,{}):t?e(_s,{id:decodeURIComponent(t)}):e(fs,{})}function fs(){const{api:t,can:n}=C(),[r,s]=h(""),[o,l]=h(""),a=ae(o),c=H(()=>t.request(or,{first:Lt,after:a.after,filter:o?{search:o}:null}),[o,a.after]),d=c.data?.skills;return e(v,{children:[e(M,{title:"Skills",children:n.manageSome&&e(v,{children:[e($,{class:"button primary",to:"/skills/new",children:"Create skill"}),e($,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:i=>{i.preventDefault(),l(r.trim())},children:[e(w,{label:"Search",name:"search",value:r,onInput:s}),e("button",{type:"submit",children:"Filter"})]}),e(z,{error:c.error,retry:c.reload}),d&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:d.edges.map(({node:i})=>e("tr",{children:[e("td",{children:e($,{to:`/skills/${encodeURIComponent(i.id)}`,children:i.name})}),e("td",{children:i.label}),e("td",{children:i.space?i.space.name:"global"}),e("td",{children:i.version}),e("td",{children:i.candidateVersion?`${i.candidateVersion} (${i.canaryPercent}% of sessions)`:"—"}),e("td",{children:e(T,{tone:j(i.status),children:i.status})})]},i.id))})]}),e(ie,{label:"Skills",page:a.page,pageSize:Lt,shown:d.edges.length,total:d.totalCount,hasNext:d.pageInfo.hasNextPage,onNext:()=>a.next(d.pageInfo.endCursor),onPrevious:a.previous})]}),e(ws,{})]})}function cn({value:t,onChange:n,allowGlobal:r,errors:s}){const o=Q(),l=[...r?[["","Global (every space)"]]:[],...(o.data??[]).map(a=>[a.id,a.label])];return e(q,{label:"Space",name:"spaceId",value:t,onChange:n,options:l,errors:s})}function gs(){const{api:t,can:n,viewer:r}=C(),[s,o]=h(r.space?.id??""),[l,a]=h(""),[c,d]=h(""),[i,p]=h(""),[m,u]=h(""),[f,b]=h(""),[S,_]=h(""),y=K();return n.manageSome?e(v,{children:[e(M,{title:"Create skill"}),e(oe,{wide:!0,onSubmit:async I=>{I.preventDefault();const L=await y.run(async()=>(await t.request(cr,{input:{spaceId:s||null,name:l,label:c,description:i,prompt:m,triggerHints:f.split(",").map(D=>D.trim()).filter(Boolean),boundary:S||null}})).createSkill);L?.skill&&re(X(`/skills/${encodeURIComponent(L.skill.id)}`))},mutation:y,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"],submitLabel:"Create skill",cancel:"/skills",children:[n.admin&&e(cn,{value:s,onChange:o,allowGlobal:!0,errors:y.errors}),e(w,{label:"Name",name:"name",value:l,onInput:a,errors:y.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(w,{label:"Label",name:"label",value:c,onInput:d,errors:y.errors}),e(w,{label:"Description",name:"description",value:i,onInput:p,errors:y.errors}),e(Y,{label:"Prompt",name:"prompt",value:m,onInput:u,errors:y.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(w,{label:"Trigger hints",name:"triggerHints",value:f,onInput:b,errors:y.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(w,{label:"Boundary",name:"boundary",value:S,onInput:_,errors:y.errors,hint:"What the skill must not be used for."})]})]}):e("p",{children:"This key cannot create skills."})}function bs(){const{api:t,can:n,viewer:r}=C(),[s,o]=h(r.space?.id??""),[l,a]=h(""),[c,d]=h(!1),i=K();return n.manageSome?e(v,{children:[e(M,{title:"Import SKILL.md"}),e(oe,{wide:!0,onSubmit:async m=>{m.preventDefault();const u=await i.run(async()=>(await t.request(mr,{input:{spaceId:s||null,text:l,replaceExisting:c}})).importSkill);u?.skill&&re(X(`/skills/${encodeURIComponent(u.skill.id)}`))},mutation:i,fields:["spaceId","text"],submitLabel:"Import skill",cancel:"/skills",children:[n.admin&&e(cn,{value:s,onChange:o,allowGlobal:!0,errors:i.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async m=>a(await m.currentTarget.files?.[0]?.text()??l)})]}),e(Y,{label:"SKILL.md text",name:"text",value:l,onInput:a,errors:i.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:c,onChange:m=>d(m.currentTarget.checked)})," Update the skill of that name if it exists"]})]})]}):e("p",{children:"This key cannot import skills."})}function _s({id:t}){const{api:n,can:r}=C(),s=H(()=>n.request(ar,{id:t}),[t]),o=s.data?.skill;if(s.data&&!o)return e(v,{children:[e(M,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e($,{to:"/skills",children:"Back to Skills"})]})]});const l=o?r.manage(o.space?.id??null)&&(o.space!==null||r.admin):!1;return e(v,{children:[e(M,{title:o?`Skill ${o.name}`:"Skill",children:e($,{class:"button",to:"/skills",children:"All skills"})}),e(z,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Scope"}),e("dd",{children:o.space?`space ${o.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:j(o.status),children:o.status})}),e("dt",{children:"Production"}),e("dd",{children:[o.version," (",o.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:o.candidateVersion?`${o.candidateVersion}, served to ${o.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:o.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:o.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:o.boundary??"—"})]}),l&&e(vs,{skill:o,onChanged:s.reload}),e(Ss,{skill:o}),e(Is,{skill:o}),e(ks,{skill:o}),l&&e(ys,{skill:o,onChanged:s.reload})]})]})}function ys({skill:t,onChanged:n}){const{api:r}=C(),s=K(),o=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:s.busy,onClick:async()=>{await s.run(async()=>(await r.request(at,{input:{id:t.id,status:o}})).setStatus)&&n()},children:o==="ACTIVE"?"Enable skill":"Disable skill"}),e(Z,{errors:s.errors,fields:[]})]})}function vs({skill:t,onChanged:n}){const{api:r}=C(),s=t.versions.find(E=>E.version===t.version),[o,l]=h(s?.prompt??""),[a,c]=h(""),[d,i]=h("10"),[p,m]=h(String(t.canaryPercent)),[u,f]=h(""),[b,S]=h(null),_=K(),y=K(),g=K(),I=K();V(()=>m(String(t.canaryPercent)),[t.canaryPercent]);const L=t.versions.filter(E=>E.version!==t.version&&E.channel!=="CANDIDATE"),D=async E=>{E.preventDefault();const P=await _.run(async()=>(await r.request(dr,{input:{skillId:t.id,prompt:o,version:a||null,canaryPercent:d===""?null:Number(d)}})).publishSkillVersion);P?.skillVersion&&(S(`Version ${P.skillVersion.version} published as the candidate.`),c(""),n())},G=async()=>{const E=await y.run(async()=>(await r.request(ur,{input:{skillId:t.id}})).promoteSkillCandidate);E?.skill&&(S(`Version ${E.skill.version} is now in production.`),n())},A=async E=>{E.preventDefault();const P=await g.run(async()=>(await r.request(hr,{input:{skillId:t.id,version:u||null}})).rollbackSkill);P?.skill&&(S(`Production rolled back to ${P.skill.version}.`),n())},J=async E=>{E.preventDefault();const P=await I.run(async()=>(await r.request(pr,{input:{skillId:t.id,canaryPercent:Number(p)}})).setSkillCanary);P?.skill&&(S(`The candidate now serves ${P.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),b&&e(Ce,{children:b}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:D,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(Y,{label:"Candidate prompt",name:"prompt",value:o,onInput:l,errors:_.errors,rows:8,mono:!0}),e(w,{label:"Candidate version",name:"version",value:a,onInput:c,errors:_.errors,hint:"Default: the next patch version."}),e(w,{label:"Canary share (%)",name:"canaryPercent",value:d,onInput:i,errors:_.errors,type:"number"}),e(Z,{errors:_.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:_.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:G,disabled:y.busy,children:["Promote ",t.candidateVersion," to production"]}),e(Z,{errors:y.errors,fields:[]}),e("form",{class:"form",onSubmit:J,"aria-label":"Canary share",children:[e(w,{label:"Share of sessions (%)",name:"canaryPercent",value:p,onInput:m,errors:I.errors,type:"number"}),e(Z,{errors:I.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:I.busy,children:"Set canary share"})]})]}),L.length>0&&e("form",{class:"card form",onSubmit:A,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(q,{label:"Version to serve",name:"version",value:u,onChange:f,errors:g.errors,options:[["","The previous production version"],...L.map(E=>[E.version,`${E.version} (${E.channel})`])]}),e(Z,{errors:g.errors,fields:["version"]}),e("button",{type:"submit",disabled:g.busy,children:"Roll back"})]})]})]})]})}function Ss({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",s=n.length>1?n[n.length-2].version:r,[o,l]=h(s),[a,c]=h(r);V(()=>{l(s),c(r)},[s,r]);const d=n.find(m=>m.version===o)?.prompt??"",i=n.find(m=>m.version===a)?.prompt??"",p=n.map(m=>[m.version,`${m.version} (${m.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(m=>e("tr",{children:[e("td",{children:m.version}),e("td",{children:e(T,{tone:j(m.channel),children:m.channel})}),e("td",{children:F(m.createdAt)}),e("td",{children:m.prompt.length})]},m.version))})]}),n.length>1&&e(v,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(q,{label:"From version",name:"from",value:o,onChange:l,options:p}),e(q,{label:"To version",name:"to",value:a,onChange:c,options:p})]}),e("pre",{class:"diff","aria-label":`Diff from ${o} to ${a}`,tabIndex:0,children:ps(d,i).map((m,u)=>e("div",{class:m.kind,children:[e("span",{"aria-hidden":"true",children:m.kind==="added"?"+ ":m.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:m.kind==="added"?"added: ":m.kind==="removed"?"removed: ":""}),m.text]},u))})]})]})}function Is({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:F(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function ks({skill:t}){const{api:n}=C(),[r,s]=h(t.version),[o,l]=h(null),[a,c]=h(null),d=async()=>{try{const p=await n.request(ir,{id:t.id,version:r});l(p.skill?.skillMd??null)}catch(p){c(ee(p))}},i=o?URL.createObjectURL(new Blob([o],{type:"text/markdown"})):null;return V(()=>()=>i?URL.revokeObjectURL(i):void 0,[i]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(q,{label:"Export version",name:"exportVersion",value:r,onChange:s,options:t.versions.map(p=>[p.version,p.version])}),e("button",{type:"button",onClick:d,children:"Export SKILL.md"})]}),a&&e("p",{role:"alert",children:a}),o&&i&&e(v,{children:[e("a",{href:i,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:o})]})]})}function ws(){const{api:t,viewer:n}=C(),r=Q(),[s,o]=h(n.space?.id??""),[l,a]=h(""),[c,d]=h(null),[i,p]=h(null),m=(r.data??[]).map(f=>[f.id,f.label]);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),p(null);try{d((await t.request(fr,{spaceId:s||m[0]?.[0]||"",query:l,topK:10})).matchSkills)}catch(b){p(ee(b))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(q,{label:"Space",name:"spaceId",value:s,onChange:o,options:m}),e(we,{label:"Request",name:"query",children:f=>e("input",{...f,value:l,onInput:b=>a(b.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),i&&e("p",{role:"alert",children:i}),c&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[c.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),c.map(f=>e("tr",{children:[e("td",{children:e($,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const qt=50;function Cs({sub:t}){return t==="new"?e($s,{}):t?e(Ts,{id:decodeURIComponent(t)}):e(As,{})}function As(){const{api:t,can:n}=C(),r=ae("spaces"),s=H(()=>t.request(gr,{first:qt,after:r.after}),[r.after]),o=s.data?.spaces;return e(v,{children:[e(M,{title:"Spaces",children:n.admin&&e($,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(z,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:[e($,{to:`/spaces/${encodeURIComponent(l.id)}`,children:l.label})," ",l.isSystem&&e(T,{children:"system"})]}),e("td",{children:e("code",{children:l.name})}),e("td",{children:e("code",{children:l.id})}),e("td",{children:F(l.createdAt)})]},l.id))})]}),e(ie,{label:"Spaces",page:r.page,pageSize:qt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous})]})]})}function $s(){const{api:t,can:n}=C(),[r,s]=h(""),[o,l]=h(""),a=K();return n.admin?e(v,{children:[e(M,{title:"Create space"}),e(oe,{onSubmit:async d=>{d.preventDefault();const i=await a.run(async()=>(await t.request(_r,{input:{name:r,label:o}})).createSpace);i?.space&&re(X(`/spaces/${encodeURIComponent(i.space.id)}?created=1`))},mutation:a,fields:["name","label"],submitLabel:"Create space",cancel:"/spaces",children:[e(w,{label:"Name",name:"name",value:r,onInput:s,errors:a.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(w,{label:"Label",name:"label",value:o,onInput:l,errors:a.errors,hint:"Display name for people.",required:!0})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function Ts({id:t}){const{api:n}=C(),r=H(()=>n.request(br,{id:t}),[t]),s=r.data?.space,o=new URLSearchParams(window.location.search).has("created");return r.data&&!s?e(v,{children:[e(M,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e($,{to:"/spaces",children:"Back to Spaces"})]})]}):e(v,{children:[e(M,{title:s?`Space ${s.label}`:"Space",children:e($,{class:"button",to:"/spaces",children:"All spaces"})}),e(z,{error:r.error,retry:r.reload}),o&&s&&e(Ce,{children:["Space ",s.name," created."]}),s&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:s.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Created"}),e("dd",{children:F(s.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",s.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:s.visibleTools.edges.map(({node:l})=>e("li",{children:[e($,{to:`/tools/${encodeURIComponent(l.id)}`,children:l.name})," ",e(T,{children:l.type})," ",e(T,{tone:l.isGlobal?"plain":"busy",children:l.isGlobal?"global":"bound"})]},l.id))}),s.visibleTools.totalCount>s.visibleTools.edges.length&&e($,{to:`/tools?space=${encodeURIComponent(s.id)}`,children:["All ",s.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",s.skills.totalCount,")"]}),e("ul",{class:"plain",children:s.skills.edges.map(({node:l})=>e("li",{children:[e($,{to:`/skills/${encodeURIComponent(l.id)}`,children:l.name})," ",e("span",{class:"muted",children:l.version})," ",!l.space&&e(T,{children:"global"})]},l.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",s.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:s.knowledgeBases.edges.map(({node:l})=>e("li",{children:[e($,{to:`/knowledge/${encodeURIComponent(l.id)}`,children:l.label})," ",e("span",{class:"muted",children:[l.documentCount," documents"]})]},l.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",s.agents.totalCount,")"]}),e("ul",{class:"plain",children:s.agents.edges.map(({node:l})=>e("li",{children:[e($,{to:`/agents/${encodeURIComponent(l.id)}`,children:l.name})," ",e("span",{class:"muted",children:l.model})]},l.id))})]})]})]})]})}const Es=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function Ps(){const[t,n]=h(()=>bt()?{kind:"checking"}:{kind:"signedOut",reason:kn()}),r=qe(o=>{vn(o??null),n({kind:"signedOut",reason:o??null})},[]),s=qe(async o=>{const l=new Bt(o,c=>r(dn(c))),{viewer:a}=await l.request(nn,{});l.close(),Sn(o),n({kind:"signedIn",key:o,viewer:a})},[r]);return V(()=>{if(t.kind!=="checking")return;const o=bt();if(!o){n({kind:"signedOut",reason:null});return}s(o).catch(l=>{l instanceof nt||n({kind:"signedOut",reason:ee(l)})})},[t.kind,s]),V(()=>{const o=l=>{l.key===In&&l.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",o),()=>window.removeEventListener("storage",o)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(Ds,{reason:t.reason,onSignIn:s}):e(Rs,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function dn(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function Ds({reason:t,onSignIn:n}){const[r,s]=h(""),[o,l]=h(null),[a,c]=h(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async i=>{i.preventDefault();const p=r.trim();if(!p){l("Enter an API key.");return}c(!0),l(null);try{const m=await yn(p);if(!m.ok){l(`This key was refused: ${m.reason}`);return}await n(p)}catch(m){l(ee(m))}finally{c(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${o?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":o!==null,"aria-describedby":o?"api-key-error":void 0,onInput:i=>s(i.currentTarget.value),autoFocus:!0}),o&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:o})]}),e("button",{type:"submit",class:"primary",disabled:a,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function Rs({apiKey:t,viewer:n,signOut:r}){const[s,o]=h(n),l=fe(()=>new Bt(t,d=>r(dn(d))),[t,r]);V(()=>()=>l.close(),[l]),V(()=>{const d=window.setInterval(()=>{l.request(nn,{}).then(i=>o(i.viewer),()=>{})},$r);return()=>window.clearInterval(d)},[l]);const a=fe(()=>({api:l,viewer:s,can:Tr(s),signOut:r}),[l,s,r]),c=rn();return V(()=>{c===""&&re(X("/spaces"),{replace:!0})},[c]),e(sn.Provider,{value:a,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:s.role})," ",s.space?e(v,{children:["space ",e("strong",{children:s.space.label})," ",e("span",{class:"muted",children:["(",s.space.name,")"]})]}):e(v,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",s.keyLabel?`“${s.keyLabel}” `:"",e("code",{children:s.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:Es.map(d=>e("li",{children:e($,{to:d.path,"aria-current":c===d.path||c.startsWith(`${d.path}/`)?"page":void 0,children:d.name})},d.path))})}),e("main",{id:"main",class:"content",children:e(Ns,{path:c})})]})]})}function Ns({path:t}){const[,n,...r]=t.split("/"),s=r.join("/");switch(n){case"spaces":return e(Cs,{sub:s});case"tools":return e(Pr,{sub:s});case"mcp-servers":return e(is,{});case"knowledge":return e(es,{sub:s});case"skills":return e(ms,{sub:s});case"agents":return e(Fr,{sub:s});case"live-calls":return e(os,{});case"api-keys":return e(Zr,{});case void 0:return null;default:return e(v,{children:[e(M,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:X(t)}),". ",e($,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}Dn(e(Ps,{}),document.getElementById("app"));
